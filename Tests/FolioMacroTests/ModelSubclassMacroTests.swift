import FolioMacros
import SwiftSyntax
import SwiftSyntaxMacroExpansion
import SwiftSyntaxMacrosGenericTestSupport
import Testing

/// What `@Model` writes into a subclass of a `@Model` class (model
/// inheritance): the compiler passes no conformance, the class inheriting
/// `PersistentModel` and `Observable`, so the expansion adds none.
@Suite struct ModelSubclassMacroTests {
    static func macros(conformances: [String]) -> [String: MacroSpec] {
        var macros = folioMacros
        macros["Model"] = MacroSpec(
            type: ModelMacro.self,
            conformances: conformances.map { TypeSyntax(IdentifierTypeSyntax(name: .identifier($0))) })
        return macros
    }

    static let perdiemProperty = #"""
            var perdiem: Double {
                @storageRestrictions(accesses: _$backingData, initializes: _perdiem)
                init(initialValue) {
                    Folio.BackingData._initialize(&_$backingData, initialValue, at: -1, named: "perdiem")
                    _perdiem = Folio._PersistedPropertyMarker()
                }
                get {
                    Folio.BackingData._reading(&_$backingData) {
                        $0.value(of: self, {
                                \.perdiem
                            }, at: -1, named: "perdiem")
                    }
                }
                set {
                    _$backingData.setValue(newValue, of: self, \.perdiem, at: -1, named: "perdiem")
                }
            }

            private var _perdiem: Folio._PersistedPropertyMarker
        """#

    static func subclassMembers(_ className: String) -> String {
        #"""
            @exclusivity(unchecked) private nonisolated(unsafe) var _$backingData: Folio.BackingData = Folio.BackingData._initialOfSubclass(\#(className).self)

            override class var _$ownSchemaMetadata: [Folio.Schema.PropertyMetadata] {
                [
                    Folio.Schema.PropertyMetadata("perdiem", \\#(className).perdiem)
                ]
            }

            override var persistentBackingData: Folio.BackingData {
                get {
                    let backing = super.persistentBackingData
                    if _$backingData !== backing {
                        _$backingData = backing
                    }
                    return backing
                }
                set {
                    super.persistentBackingData = newValue
                    _$backingData = newValue
                }
            }

            required init(backingData: Folio.BackingData) {
                self._perdiem = Folio._PersistedPropertyMarker()
                if self._$backingData !== backingData {
                    self._$backingData = backingData
                }
                super.init(backingData: backingData)
            }
        """#
    }

    @Test("A subclass keeps its own properties in storage of its own, read by name, and calls the superclass's init(backingData:)")
    func firstSubclass() {
        assertExpansion(
            """
            @Model
            final class BusinessTrip: Trip {
                var perdiem: Double
            }
            """,
            expandedSource: """
                final class BusinessTrip: Trip {
                \(Self.perdiemProperty)

                \(Self.subclassMembers("BusinessTrip"))
                }
                """,
            macros: Self.macros(conformances: []))
    }

    @Test("A subclass of a subclass expands the same way, under its own name")
    func deeperSubclass() {
        assertExpansion(
            """
            @Model
            final class SummitTrip: BusinessTrip {
                var perdiem: Double
            }
            """,
            expandedSource: """
                final class SummitTrip: BusinessTrip {
                \(Self.perdiemProperty)

                \(Self.subclassMembers("SummitTrip"))
                }
                """,
            macros: Self.macros(conformances: []))
    }

    @Test("A class whose first inherited type is not a @Model class gets the whole expansion, its properties read by name")
    func plainSuperclass() {
        // The compiler passes both conformances: the class has neither. Only the
        // property attributes, which see syntax alone, take it for a possible subclass.
        assertExpansion(
            """
            @Model
            final class Note: Stamped {
                var perdiem: Double

                init(perdiem: Double) {
                    self.perdiem = perdiem
                }
            }
            """,
            expandedSource: #"""
                final class Note: Stamped {
                \#(Self.perdiemProperty)

                    init(perdiem: Double) {
                        self.perdiem = perdiem
                    }

                    \#(backingDataMembers(of: "Note"))

                    static var schemaMetadata: [Folio.Schema.PropertyMetadata] {
                        [
                            Folio.Schema.PropertyMetadata("perdiem", \Note.perdiem)
                        ]
                    }

                    \#(backingDataInitializer(markers: ["perdiem"]))

                    \#(unregisteringDeinit(of: "Note"))
                }

                extension Note: Folio.PersistentModel, Observation.Observable {
                }
                """#
        )
    }
}
