import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxMacros

/// `@ModelActor`: gives an actor its own `ModelContext` on a container, for
/// background work; its saves reach other contexts through the container.
public struct ModelActorMacro: MemberMacro, ExtensionMacro {
    public static func expansion(
        of node: AttributeSyntax,
        providingMembersOf declaration: some DeclGroupSyntax,
        conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        guard let actorDecl = declaration.as(ActorDeclSyntax.self) else {
            // A class or struct becomes an actor by its keyword; other declarations have no such fix.
            let keyword = declaration.as(ClassDeclSyntax.self)?.classKeyword ?? declaration.as(StructDeclSyntax.self)?.structKeyword
            let fixIts = keyword.map { [FixIt(message: FolioFixIt(message: "Make it an actor"), changes: [.replacing($0, with: .actor)])] } ?? []
            context.diagnose(Diagnostic(node: node, message: FolioDiagnostic.modelActorOnNonActor, fixIts: fixIts))
            return []
        }
        let access =
            actorDecl.modifiers.contains { ["public", "package"].contains($0.name.text) }
            ? "\(actorDecl.modifiers.first { ["public", "package"].contains($0.name.text) }?.name.text ?? "") " : ""
        return [
            "\(raw: access)nonisolated let modelExecutor: any Folio.ModelExecutor",
            "\(raw: access)nonisolated let modelContainer: Folio.ModelContainer",
            """
            \(raw: access)init(modelContainer: Folio.ModelContainer) {
                let modelContext = Folio.ModelContext(modelContainer)
                self.modelExecutor = Folio.DefaultSerialModelExecutor(modelContext: modelContext)
                self.modelContainer = modelContainer
            }
            """,
        ]
    }

    public static func expansion(
        of node: AttributeSyntax,
        attachedTo declaration: some DeclGroupSyntax,
        providingExtensionsOf type: some TypeSyntaxProtocol,
        conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [ExtensionDeclSyntax] {
        guard declaration.is(ActorDeclSyntax.self), !protocols.isEmpty else { return [] }
        let decl: DeclSyntax = "extension \(type.trimmed): Folio.ModelActor {}"
        return decl.as(ExtensionDeclSyntax.self).map { [$0] } ?? []
    }
}
