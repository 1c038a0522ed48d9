import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxMacros

/// `#Index<Animal>([\.name], [\.age, \.weight])`: the model's indexes, as key
/// paths the compiler checks — SwiftData's `#Index`.
///
/// Expands to the `_$indexes` witness of `PersistentModel`; `Schema(_:)` turns
/// the key paths into attribute names (`Schema.Entity.indexes`). Mirrors
/// ``UniqueMacro``: the same checks of where it stands and what it is given.
public struct IndexMacro: DeclarationMacro {
    public static func expansion(
        of node: some FreestandingMacroExpansionSyntax,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        let classDecl = context.lexicalContext.first?.as(ClassDeclSyntax.self)
        guard let classDecl else {
            context.diagnose(Diagnostic(node: node, message: FolioDiagnostic.indexOutsideModel))
            return []
        }
        guard let model = node.genericArgumentClause?.arguments.first?.argument else {
            // The key paths' root cannot be inferred: name the enclosing class.
            let name = classDecl.name.trimmed.text
            let insertion = node.macroName.endPositionBeforeTrailingTrivia
            let fixIt = FixIt(message: FolioFixIt(message: "Insert '<\(name)>'"),
                              changes: [.replaceText(range: insertion..<insertion, with: "<\(name)>", in: Syntax(node))])
            context.diagnose(Diagnostic(node: node.macroName, message: FolioDiagnostic.indexWithoutModel(name), fixIts: [fixIt]))
            return []
        }
        guard !node.arguments.isEmpty else {
            context.diagnose(Diagnostic(node: node, message: FolioDiagnostic.indexWithoutKeyPaths))
            return []
        }
        for argument in node.arguments {
            if let array = argument.expression.as(ArrayExprSyntax.self), array.elements.isEmpty {
                context.diagnose(Diagnostic(node: argument, message: FolioDiagnostic.emptyIndex,
                                            fixIts: [FixIt(message: FolioFixIt(message: "Remove the empty index"),
                                                           changes: [.removing(argument, from: node)])]))
                return []
            }
        }
        let access = ModelMacro.accessModifier(of: classDecl)
        let indexes = node.arguments.map { $0.expression.trimmedDescription }.joined(separator: ", ")
        return [
            """
            \(raw: access)static var _$indexes: [[AnyKeyPath]] {
                let indexes: [[PartialKeyPath<\(model.trimmed)>]] = [\(raw: indexes)]
                return indexes.map { $0.map { $0 as AnyKeyPath } }
            }
            """,
        ]
    }
}

extension FolioDiagnostic {
    static let indexOutsideModel = error("indexOutsideModel", "'#Index' declares a model's indexes; write it inside the '@Model' class")
    static func indexWithoutModel(_ name: String) -> FolioDiagnostic {
        error("indexWithoutModel", "'#Index' needs the model class its key paths start from: '#Index<\(name)>(...)'")
    }
    static let indexWithoutKeyPaths = error("indexWithoutKeyPaths", "'#Index' needs at least one index: an array of key paths, such as '[\\.name]'")
    static let emptyIndex = error("emptyIndex", "an index needs at least one key path")
}
