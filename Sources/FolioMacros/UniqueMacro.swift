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
        KeyPathListsMacro.expansion(
            of: node, in: context, property: "_$uniquenessConstraints",
            messages: .init(
                outsideModel: .uniqueOutsideModel, withoutModel: FolioDiagnostic.uniqueWithoutModel,
                withoutLists: .uniqueWithoutConstraints, emptyList: .emptyUniquenessConstraint,
                removeEmptyList: "Remove the empty constraint"))
    }
}
