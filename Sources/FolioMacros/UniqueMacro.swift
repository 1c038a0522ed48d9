import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxMacros

/// `#Unique<Trip>([\.name, \.start], [\.code])`: the model's uniqueness
/// constraints, as key paths the compiler checks.
///
/// Expands to the `_$uniquenessConstraints` witness of `PersistentModel`;
/// `Schema(_:)` turns the key paths into property names (attributes and
/// to-one relationships alike).
public struct UniqueMacro: DeclarationMacro {
    public static func expansion(
        of node: some FreestandingMacroExpansionSyntax,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        let classDecl = context.lexicalContext.first?.as(ClassDeclSyntax.self)
        guard let classDecl else {
            context.diagnose(Diagnostic(node: node, message: FolioDiagnostic.uniqueOutsideModel))
            return []
        }
        guard let model = node.genericArgumentClause?.arguments.first?.argument else {
            // The key paths' root cannot be inferred: name the enclosing class.
            let name = classDecl.name.trimmed.text
            let fixIt = FixIt(message: FolioFixIt(message: "Insert '<\(name)>'"),
                              changes: [.replaceText(range: node.macroName.endPositionBeforeTrailingTrivia..<node.macroName.endPositionBeforeTrailingTrivia,
                                                     with: "<\(name)>", in: Syntax(node))])
            context.diagnose(Diagnostic(node: node.macroName, message: FolioDiagnostic.uniqueWithoutModel(name), fixIts: [fixIt]))
            return []
        }
        guard !node.arguments.isEmpty else {
            context.diagnose(Diagnostic(node: node, message: FolioDiagnostic.uniqueWithoutConstraints))
            return []
        }
        for argument in node.arguments {
            if let array = argument.expression.as(ArrayExprSyntax.self), array.elements.isEmpty {
                context.diagnose(Diagnostic(node: argument, message: FolioDiagnostic.emptyUniquenessConstraint,
                                            fixIts: [FixIt(message: FolioFixIt(message: "Remove the empty constraint"),
                                                           changes: [.removing(argument, from: node)])]))
                return []
            }
        }
        let access = ModelMacro.accessModifier(of: classDecl)
        let constraints = node.arguments.map { $0.expression.trimmedDescription }.joined(separator: ", ")
        return [
            """
            \(raw: access)static var _$uniquenessConstraints: [[AnyKeyPath]] {
                let constraints: [[PartialKeyPath<\(model.trimmed)>]] = [\(raw: constraints)]
                return constraints.map { $0.map { $0 as AnyKeyPath } }
            }
            """,
        ]
    }
}
