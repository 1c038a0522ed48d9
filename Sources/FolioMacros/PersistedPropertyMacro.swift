import SwiftSyntax
import SwiftSyntaxMacros

/// `@_PersistedProperty`, which `@Model` puts on each persisted stored property:
/// the property becomes a view over the model's backing data, and a peer
/// `_name` keeps its value while the model belongs to no context.
public struct PersistedPropertyMacro: AccessorMacro, PeerMacro {
    public static func expansion(
        of node: AttributeSyntax,
        providingAccessorsOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [AccessorDeclSyntax] {
        guard let variable = declaration.as(VariableDeclSyntax.self),
            let property = ModelProperty(variable), !property.isTransient
        else { return [] }
        // `name` is unescaped (the document's name, and `_name` for storage);
        // the key path spells the property as it was declared.
        let name = property.name
        let keyPath = "\\.\(property.spelledName)"
        // `@Model` writes the property's position in `schemaMetadata`; -1 (none) reads by name.
        let ordinal =
            node.arguments?.as(LabeledExprListSyntax.self)?.first?.expression
            .as(IntegerLiteralExprSyntax.self)?.literal.text ?? "-1"
        // The value goes to the backing data (the peer `_name` only tells the
        // compiler the property was initialized): no allocation per property.
        // A read gets its key path as a closure: made only under observation tracking,
        // and reaches the backing data counting no reference (`_reading`).
        // `@Attribute(.codable)`: stored through the Codable form, not by the type's overload.
        let (initialize, read, write) =
            property.isCodable
            ? ("_initializeCodable", "codableValue", "setCodableValue") : ("_initialize", "value", "setValue")
        return [
            """
            @storageRestrictions(accesses: _$backingData, initializes: _\(raw: name))
            init(initialValue) {
                Folio.BackingData.\(raw: initialize)(&_$backingData, initialValue, at: \(raw: ordinal), named: "\(raw: name)")
                _\(raw: name) = Folio._PersistedPropertyMarker()
            }
            """,
            """
            get {
                Folio.BackingData._reading(&_$backingData) { $0.\(raw: read)(of: self, { \(raw: keyPath) }, at: \(raw: ordinal), named: "\(raw: name)") }
            }
            """,
            """
            set {
                _$backingData.\(raw: write)(newValue, of: self, \(raw: keyPath), at: \(raw: ordinal), named: "\(raw: name)")
            }
            """,
        ]
    }

    public static func expansion(
        of node: AttributeSyntax,
        providingPeersOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        guard let variable = declaration.as(VariableDeclSyntax.self),
            let property = ModelProperty(variable), !property.isTransient
        else { return [] }
        return ["private var _\(raw: property.name): Folio._PersistedPropertyMarker"]
    }
}
