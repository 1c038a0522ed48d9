import FolioMacros
import SwiftSyntax
import SwiftSyntaxMacroExpansion
import SwiftSyntaxMacrosGenericTestSupport
import Testing

/// Every Folio macro, by the name its declaration in `Folio/Model/Macros.swift`
/// gives it, with the conformances the compiler would pass to its extension role.
let folioMacros: [String: MacroSpec] = [
    "Model": MacroSpec(type: ModelMacro.self, conformances: [type("PersistentModel"), type("Observable")]),
    "_PersistedProperty": MacroSpec(type: PersistedPropertyMacro.self),
    "Attribute": MacroSpec(type: SchemaMarkerMacro.self),
    "Relationship": MacroSpec(type: SchemaMarkerMacro.self),
    "Transient": MacroSpec(type: SchemaMarkerMacro.self),
    "ModelActor": MacroSpec(type: ModelActorMacro.self, conformances: [type("ModelActor")]),
    "Unique": MacroSpec(type: UniqueMacro.self),
    "Index": MacroSpec(type: IndexMacro.self),
]

private func type(_ name: String) -> TypeSyntax {
    TypeSyntax(IdentifierTypeSyntax(name: .identifier(name)))
}

/// `assertMacroExpansion` reporting through Swift Testing: each mismatch is an
/// issue recorded at the line of the test that made the assertion.
func assertExpansion(
    _ source: String,
    expandedSource: String,
    diagnostics: [DiagnosticSpec] = [],
    macros: [String: MacroSpec] = folioMacros,
    applyFixIts: [String]? = nil,
    fixedSource: String? = nil,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
) {
    assertMacroExpansion(
        source,
        expandedSource: expandedSource,
        diagnostics: diagnostics,
        macroSpecs: macros,
        applyFixIts: applyFixIts,
        fixedSource: fixedSource,
        failureHandler: { spec in
            Issue.record(
                Comment(rawValue: spec.message),
                sourceLocation: SourceLocation(
                    fileID: spec.location.fileID, filePath: spec.location.filePath,
                    line: spec.location.line, column: spec.location.column))
        },
        fileID: fileID, filePath: filePath, line: line, column: column
    )
}

// What `@Model` writes in every class, for the expected expansions: each
// returns its lines joined, the lines after the first indented by `indent`
// (the class body's indentation in the expected source), so a test writes
// `\#(backingDataMembers(of: "Zoo"))` where the members go.

/// The backing data, the shared row and `persistentBackingData`, ahead of `schemaMetadata`;
/// `_$makesModelsAnywhere` when every stored property starts as a literal (or has no initial value).
func backingDataMembers(
    of className: String, access: String = "", literalInitialValues: Bool = true,
    indent: String = "    "
) -> String {
    let anywhere = #"""


        nonisolated \#(access)static var _$makesModelsAnywhere: Bool {
            Folio.BackingData._isNonisolated(\#(className).init(backingData:))
        }
        """#
    return lines(
        #"""
        @exclusivity(unchecked) private nonisolated(unsafe) var _$backingData: Folio.BackingData = Folio.BackingData._initial(for: \#(className).self)

        @exclusivity(unchecked) \#(access)nonisolated(unsafe) var _$sharedRow = Folio._SharedBackingRow()

        \#(access)static var _$sharesBackingData: Bool {
            true
        }\#(literalInitialValues ? anywhere : "")

        \#(access)var _$heldBackingData: Folio.BackingData {
            _$backingData
        }

        \#(access)var persistentBackingData: Folio.BackingData {
            get {
                Folio.BackingData._resolved(&_$backingData, of: self)
            }
            set {
                _$backingData._modelWillGo(ObjectIdentifier(self), _$sharedRow)
                _$sharedRow = Folio._SharedBackingRow()
                _$backingData = newValue
            }
        }
        """#, indent: indent)
}

/// `_$ownSchemaMetadata` (what a subclass overrides), then `init(backingData:)`,
/// setting the markers of the persisted properties named.
func backingDataInitializer(markers: [String], access: String = "", indent: String = "    ") -> String {
    lines(
        """
        \(access)class var _$ownSchemaMetadata: [Folio.Schema.PropertyMetadata] {
            schemaMetadata
        }

        \(access)required init(backingData: Folio.BackingData) {
        \(markers.map { "    self._\($0) = Folio._PersistedPropertyMarker()\n" }.joined())    if self._$backingData !== backingData {
                self._$backingData = backingData
            }
        }
        """, indent: indent)
}

/// `_$unregistersOnDeinit` and the `deinit` that unregisters the instance.
func unregisteringDeinit(of className: String, access: String = "", indent: String = "    ") -> String {
    lines(
        """
        nonisolated \(access)static var _$unregistersOnDeinit: Bool {
            Folio.BackingData._isNonisolated(\(className).init(backingData:))
        }

        deinit {
            if \(className)._$unregistersOnDeinit {
                _$backingData._modelWillGo(ObjectIdentifier(self), _$sharedRow)
            }
        }
        """, indent: indent)
}

/// The whole expansion of `@Model` on a class that persists no property: `head`
/// is the class's line as written (without `@Model`), `members` what it declares,
/// `conformance` the extension's first line.
func expansionWithoutPersistedProperties(
    of className: String, head: String? = nil, members: String? = nil, literalInitialValues: Bool = true,
    conformance: String? = nil
) -> String {
    """
    \(head ?? "final class \(className) {")\(members.map { "\n    " + $0 } ?? "")

        \(backingDataMembers(of: className, literalInitialValues: literalInitialValues))

        static var schemaMetadata: [Folio.Schema.PropertyMetadata] {
            []
        }

        \(backingDataInitializer(markers: []))

        init() {
        }

        \(unregisteringDeinit(of: className))
    }

    \(conformance ?? "extension \(className): Folio.PersistentModel, Observation.Observable {")
    }
    """
}

private func lines(_ text: String, indent: String) -> String {
    text.split(separator: "\n", omittingEmptySubsequences: false)
        .enumerated()
        .map { $0.offset == 0 || $0.element.isEmpty ? String($0.element) : indent + $0.element }
        .joined(separator: "\n")
}
