import FolioMacros
import SwiftSyntaxMacroExpansion
import Testing

/// `@_PersistedProperty` on its own, as `@Model` puts it on each persisted property.
@Suite struct PersistedPropertyMacroTests {
    let macros: [String: MacroSpec] = ["_PersistedProperty": MacroSpec(type: PersistedPropertyMacro.self)]

    @Test("A persisted property reads and writes through the backing data, keeping its unmanaged value in a private _name peer")
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
                    @storageRestrictions(initializes: _destination)
                    init(initialValue) {
                        _destination = Folio._PersistedStorage(initialValue)
                    }
                    get {
                        _$backingData.value(of: self, \.destination, at: -1, named: "destination", unmanaged: _destination)
                    }
                    set {
                        _$backingData.setValue(newValue, of: self, \.destination, at: -1, named: "destination", unmanaged: _destination)
                    }
                }

                private var _destination: Folio._PersistedStorage
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
                    @storageRestrictions(initializes: _category)
                    init(initialValue) {
                        _category = Folio._PersistedStorage(initialValue)
                    }
                    get {
                        _$backingData.value(of: self, \.category, at: -1, named: "category", unmanaged: _category)
                    }
                    set {
                        _$backingData.setValue(newValue, of: self, \.category, at: -1, named: "category", unmanaged: _category)
                    }
                }

                private var _category: Folio._PersistedStorage
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
                    @storageRestrictions(initializes: _class)
                    init(initialValue) {
                        _class = Folio._PersistedStorage(initialValue)
                    }
                    get {
                        _$backingData.value(of: self, \.`class`, at: -1, named: "class", unmanaged: _class)
                    }
                    set {
                        _$backingData.setValue(newValue, of: self, \.`class`, at: -1, named: "class", unmanaged: _class)
                    }
                }

                private var _class: Folio._PersistedStorage
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
