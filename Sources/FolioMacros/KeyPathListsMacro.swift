import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxMacros

/// What `#Unique` and `#Index` share: written inside a `@Model` class, they
/// list arrays of key paths of that class, and expand to a static property of
/// `PersistentModel` returning them as `[[AnyKeyPath]]`.
enum KeyPathListsMacro {
    /// The diagnostics of one macro, in its own words.
    struct Messages {
        var outsideModel: FolioDiagnostic
        var withoutModel: (String) -> FolioDiagnostic
        var withoutLists: FolioDiagnostic
        var emptyList: FolioDiagnostic
        /// The fix-it's text for an empty list: "Remove the empty …".
        var removeEmptyList: String
    }

    /// Checks where the macro stands and what it is given, and expands it to
    /// `static var <property>: [[AnyKeyPath]]`; diagnoses and expands to
    /// nothing when something is wrong.
    static func expansion(
        of node: some FreestandingMacroExpansionSyntax, in context: some MacroExpansionContext,
        property: String, messages: Messages
    ) -> [DeclSyntax] {
        guard let classDecl = context.lexicalContext.first?.as(ClassDeclSyntax.self) else {
            context.diagnose(Diagnostic(node: node, message: messages.outsideModel))
            return []
        }
        guard let model = node.genericArgumentClause?.arguments.first?.argument else {
            // The key paths' root cannot be inferred: name the enclosing class.
            let name = classDecl.name.trimmed.text
            let insertion = node.macroName.endPositionBeforeTrailingTrivia
            let fixIt = FixIt(
                message: FolioFixIt(message: "Insert '<\(name)>'"),
                changes: [.replaceText(range: insertion..<insertion, with: "<\(name)>", in: Syntax(node))])
            context.diagnose(Diagnostic(node: node.macroName, message: messages.withoutModel(name), fixIts: [fixIt]))
            return []
        }
        guard !node.arguments.isEmpty else {
            context.diagnose(Diagnostic(node: node, message: messages.withoutLists))
            return []
        }
        for argument in node.arguments {
            if let array = argument.expression.as(ArrayExprSyntax.self), array.elements.isEmpty {
                context.diagnose(
                    Diagnostic(
                        node: argument, message: messages.emptyList,
                        fixIts: [
                            FixIt(
                                message: FolioFixIt(message: messages.removeEmptyList),
                                changes: [.removing(argument, from: node)])
                        ]))
                return []
            }
        }
        let access = ModelMacro.accessModifier(of: classDecl)
        let lists = node.arguments.map { $0.expression.trimmedDescription }.joined(separator: ", ")
        return [
            """
            \(raw: access)static var \(raw: property): [[AnyKeyPath]] {
                let lists: [[PartialKeyPath<\(model.trimmed)>]] = [\(raw: lists)]
                return lists.map { $0.map { $0 as AnyKeyPath } }
            }
            """
        ]
    }
}
