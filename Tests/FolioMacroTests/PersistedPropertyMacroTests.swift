import FolioMacros
import SwiftSyntaxMacroExpansion
import Testing

/// `@_PersistedProperty` on its own, as `@Model` puts it on each persisted property.
@Suite struct PersistedPropertyMacroTests {
    let macros: [String: MacroSpec] = ["_PersistedProperty": MacroSpec(type: PersistedPropertyMacro.self)]

    @Test(
        "A persisted property reads and writes through the backing data, which keeps its value until insertion; a private _name marker makes initializers set it"
    )
    func accessorsAndPeer() {
        assertExpansion(
            """
            final class Trip {
                @_PersistedProperty
                var destination: String
            }
            """,
            expandedSource: #"""
                final class Trip {
                    var destination: String {
                        @storageRestrictions(accesses: _$backingData, initializes: _destination)
                        init(initialValue) {
                            Folio.BackingData._initialize(&_$backingData, initialValue, at: -1, named: "destination")
                            _destination = Folio._PersistedPropertyMarker()
                        }
                        get {
                            Folio.BackingData._reading(&_$backingData) {
                                $0.value(of: self, {
                                        \.destination
                                    }, at: -1, named: "destination")
                            }
                        }
                        set {
                            _$backingData.setValue(newValue, of: self, \.destination, at: -1, named: "destination")
                        }
                    }

                    private var _destination: Folio._PersistedPropertyMarker
                }
                """#,
            macros: macros
        )
    }

    @Test("An optional to-one property expands the same way; the runtime's overloads tell relationships from attributes")
    func optionalProperty() {
        assertExpansion(
            """
            final class Animal {
                @_PersistedProperty var category: AnimalCategory?
            }
            """,
            expandedSource: #"""
                final class Animal {
                    var category: AnimalCategory? {
                        @storageRestrictions(accesses: _$backingData, initializes: _category)
                        init(initialValue) {
                            Folio.BackingData._initialize(&_$backingData, initialValue, at: -1, named: "category")
                            _category = Folio._PersistedPropertyMarker()
                        }
                        get {
                            Folio.BackingData._reading(&_$backingData) {
                                $0.value(of: self, {
                                        \.category
                                    }, at: -1, named: "category")
                            }
                        }
                        set {
                            _$backingData.setValue(newValue, of: self, \.category, at: -1, named: "category")
                        }
                    }

                    private var _category: Folio._PersistedPropertyMarker
                }
                """#,
            macros: macros
        )
    }

    @Test("A property written with backticks keeps them in its key path but not in its document name or storage peer")
    func backtickedName() {
        assertExpansion(
            """
            final class Lesson {
                @_PersistedProperty var `class`: String
            }
            """,
            expandedSource: #"""
                final class Lesson {
                    var `class`: String {
                        @storageRestrictions(accesses: _$backingData, initializes: _class)
                        init(initialValue) {
                            Folio.BackingData._initialize(&_$backingData, initialValue, at: -1, named: "class")
                            _class = Folio._PersistedPropertyMarker()
                        }
                        get {
                            Folio.BackingData._reading(&_$backingData) {
                                $0.value(of: self, {
                                        \.`class`
                                    }, at: -1, named: "class")
                            }
                        }
                        set {
                            _$backingData.setValue(newValue, of: self, \.`class`, at: -1, named: "class")
                        }
                    }

                    private var _class: Folio._PersistedPropertyMarker
                }
                """#,
            macros: macros
        )
    }

    @Test("A @Transient property is left as written")
    func transientProperty() {
        assertExpansion(
            """
            final class Trip {
                @_PersistedProperty @Transient var isSelected = false
            }
            """,
            expandedSource: """
                final class Trip {
                    @Transient var isSelected = false
                }
                """,
            macros: macros
        )
    }

    @Test("A computed property is left as written")
    func computedProperty() {
        assertExpansion(
            """
            final class Trip {
                @_PersistedProperty var title: String { "Trip" }
            }
            """,
            expandedSource: """
                final class Trip {
                    var title: String { "Trip" }
                }
                """,
            macros: macros
        )
    }
}
