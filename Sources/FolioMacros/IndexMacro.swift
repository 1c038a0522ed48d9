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
        KeyPathListsMacro.expansion(
            of: node, in: context, property: "_$indexes",
            messages: .init(
                outsideModel: .indexOutsideModel, withoutModel: FolioDiagnostic.indexWithoutModel,
                withoutLists: .indexWithoutKeyPaths, emptyList: .emptyIndex,
                removeEmptyList: "Remove the empty index"))
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
