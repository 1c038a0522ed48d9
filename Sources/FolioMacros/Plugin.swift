import SwiftCompilerPlugin
import SwiftSyntaxMacros

@main
struct FolioMacrosPlugin: CompilerPlugin {
    let providingMacros: [any Macro.Type] = [
        ModelMacro.self,
        PersistedPropertyMacro.self,
        SchemaMarkerMacro.self,
        ModelActorMacro.self,
        UniqueMacro.self,
        IndexMacro.self,
    ]
}
