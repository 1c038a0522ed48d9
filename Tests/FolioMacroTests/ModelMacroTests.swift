import Foundation
import Testing

/// What `@Model` writes into a class, with the `@_PersistedProperty` it puts on
/// each persisted property expanded too, as the compiler would.
///
/// swift-syntax's expansion drops a property's initial value once accessors
/// make it computed (hence `var animals {` below); the compiler keeps it and
/// hands it to the `init` accessor.
@Suite struct ModelMacroTests {
    @Test("A model's stored properties become views over its backing data, each described in schemaMetadata")
    func fullExpansion() {
        assertExpansion(
            #"""
            @Model
            final class Zoo {
                var name: String
                @Attribute(.unique) var code: String
                @Relationship(deleteRule: .cascade, inverse: \Animal.zoo)
                var animals = [Animal]()
                var keeper: Keeper?
                @Transient var visitorsToday = 0
            }
            """#,
            expandedSource: #"""
                final class Zoo {
                    var name: String {
                        @storageRestrictions(accesses: _$backingData, initializes: _name)
                        init(initialValue) {
                            Folio.BackingData._initialize(&_$backingData, initialValue, at: 0, named: "name")
                            _name = Folio._PersistedPropertyMarker()
                        }
                        get {
                            Folio.BackingData._reading(&_$backingData) {
                                $0.value(of: self, {
                                        \.name
                                    }, at: 0, named: "name")
                            }
                        }
                        set {
                            _$backingData.setValue(newValue, of: self, \.name, at: 0, named: "name")
                        }
                    }

                    private var _name: Folio._PersistedPropertyMarker
                    var code: String {
                        @storageRestrictions(accesses: _$backingData, initializes: _code)
                        init(initialValue) {
                            Folio.BackingData._initialize(&_$backingData, initialValue, at: 1, named: "code")
                            _code = Folio._PersistedPropertyMarker()
                        }
                        get {
                            Folio.BackingData._reading(&_$backingData) {
                                $0.value(of: self, {
                                        \.code
                                    }, at: 1, named: "code")
                            }
                        }
                        set {
                            _$backingData.setValue(newValue, of: self, \.code, at: 1, named: "code")
                        }
                    }

                    private var _code: Folio._PersistedPropertyMarker
                    var animals {
                        @storageRestrictions(accesses: _$backingData, initializes: _animals)
                        init(initialValue) {
                            Folio.BackingData._initialize(&_$backingData, initialValue, at: 2, named: "animals")
                            _animals = Folio._PersistedPropertyMarker()
                        }
                        get {
                            Folio.BackingData._reading(&_$backingData) {
                                $0.value(of: self, {
                                        \.animals
                                    }, at: 2, named: "animals")
                            }
                        }
                        set {
                            _$backingData.setValue(newValue, of: self, \.animals, at: 2, named: "animals")
                        }
                    }

                    private var _animals: Folio._PersistedPropertyMarker
                    var keeper: Keeper? {
                        @storageRestrictions(accesses: _$backingData, initializes: _keeper)
                        init(initialValue) {
                            Folio.BackingData._initialize(&_$backingData, initialValue, at: 3, named: "keeper")
                            _keeper = Folio._PersistedPropertyMarker()
                        }
                        get {
                            Folio.BackingData._reading(&_$backingData) {
                                $0.value(of: self, {
                                        \.keeper
                                    }, at: 3, named: "keeper")
                            }
                        }
                        set {
                            _$backingData.setValue(newValue, of: self, \.keeper, at: 3, named: "keeper")
                        }
                    }

                    private var _keeper: Folio._PersistedPropertyMarker
                    var visitorsToday = 0

                    \#(backingDataMembers(of: "Zoo"))

                    static var schemaMetadata: [Folio.Schema.PropertyMetadata] {
                        [
                            Folio.Schema.PropertyMetadata("name", \Zoo.name),
                            Folio.Schema.PropertyMetadata("code", \Zoo.code, attribute: .init(.unique)),
                            Folio.Schema.PropertyMetadata("animals", \Zoo.animals, deleteRule: .cascade, inverse: \Animal.zoo, inverseName: "zoo"),
                            Folio.Schema.PropertyMetadata("keeper", \Zoo.keeper)
                        ]
                    }

                    \#(backingDataInitializer(markers: ["name", "code", "animals", "keeper"]))

                    init(name: String, code: String, keeper: Keeper? = nil) {
                        self.name = name
                        self.code = code
                        self.keeper = keeper
                    }

                    \#(unregisteringDeinit(of: "Zoo"))
                }

                extension Zoo: Folio.PersistentModel, Observation.Observable {
                }
                """#
        )
    }

    @Test("A class that declares an initializer gets no memberwise one")
    func declaredInitializer() {
        assertExpansion(
            """
            @Model
            final class Country {
                var name: String
                var visited: Bool

                init(name: String, visited: Bool = false) {
                    self.name = name
                    self.visited = visited
                }
            }
            """,
            expandedSource: #"""
                final class Country {
                    var name: String {
                        @storageRestrictions(accesses: _$backingData, initializes: _name)
                        init(initialValue) {
                            Folio.BackingData._initialize(&_$backingData, initialValue, at: 0, named: "name")
                            _name = Folio._PersistedPropertyMarker()
                        }
                        get {
                            Folio.BackingData._reading(&_$backingData) {
                                $0.value(of: self, {
                                        \.name
                                    }, at: 0, named: "name")
                            }
                        }
                        set {
                            _$backingData.setValue(newValue, of: self, \.name, at: 0, named: "name")
                        }
                    }

                    private var _name: Folio._PersistedPropertyMarker
                    var visited: Bool {
                        @storageRestrictions(accesses: _$backingData, initializes: _visited)
                        init(initialValue) {
                            Folio.BackingData._initialize(&_$backingData, initialValue, at: 1, named: "visited")
                            _visited = Folio._PersistedPropertyMarker()
                        }
                        get {
                            Folio.BackingData._reading(&_$backingData) {
                                $0.value(of: self, {
                                        \.visited
                                    }, at: 1, named: "visited")
                            }
                        }
                        set {
                            _$backingData.setValue(newValue, of: self, \.visited, at: 1, named: "visited")
                        }
                    }

                    private var _visited: Folio._PersistedPropertyMarker

                    init(name: String, visited: Bool = false) {
                        self.name = name
                        self.visited = visited
                    }

                    \#(backingDataMembers(of: "Country"))

                    static var schemaMetadata: [Folio.Schema.PropertyMetadata] {
                        [
                            Folio.Schema.PropertyMetadata("name", \Country.name),
                            Folio.Schema.PropertyMetadata("visited", \Country.visited)
                        ]
                    }

                    \#(backingDataInitializer(markers: ["name", "visited"]))

                    \#(unregisteringDeinit(of: "Country"))
                }

                extension Country: Folio.PersistentModel, Observation.Observable {
                }
                """#
        )
    }

    @Test("A public class gets public members, so they can witness PersistentModel's requirements")
    func publicClass() {
        assertExpansion(
            """
            @Model
            public final class Note {
                public var text: String
            }
            """,
            expandedSource: #"""
                public final class Note {
                    public var text: String {
                        @storageRestrictions(accesses: _$backingData, initializes: _text)
                        init(initialValue) {
                            Folio.BackingData._initialize(&_$backingData, initialValue, at: 0, named: "text")
                            _text = Folio._PersistedPropertyMarker()
                        }
                        get {
                            Folio.BackingData._reading(&_$backingData) {
                                $0.value(of: self, {
                                        \.text
                                    }, at: 0, named: "text")
                            }
                        }
                        set {
                            _$backingData.setValue(newValue, of: self, \.text, at: 0, named: "text")
                        }
                    }

                    private var _text: Folio._PersistedPropertyMarker

                    \#(backingDataMembers(of: "Note", access: "public "))

                    public static var schemaMetadata: [Folio.Schema.PropertyMetadata] {
                        [
                            Folio.Schema.PropertyMetadata("text", \Note.text)
                        ]
                    }

                    \#(backingDataInitializer(markers: ["text"], access: "public "))

                    public init(text: String) {
                        self.text = text
                    }

                    \#(unregisteringDeinit(of: "Note", access: "public "))
                }

                extension Note: Folio.PersistentModel, Observation.Observable {
                }
                """#
        )
    }

    @Test("A package class gets package members")
    func packageClass() {
        assertExpansion(
            """
            @Model
            package class Note {
                var text: String
            }
            """,
            expandedSource: #"""
                package class Note {
                    var text: String {
                        @storageRestrictions(accesses: _$backingData, initializes: _text)
                        init(initialValue) {
                            Folio.BackingData._initialize(&_$backingData, initialValue, at: 0, named: "text")
                            _text = Folio._PersistedPropertyMarker()
                        }
                        get {
                            Folio.BackingData._reading(&_$backingData) {
                                $0.value(of: self, {
                                        \.text
                                    }, at: 0, named: "text")
                            }
                        }
                        set {
                            _$backingData.setValue(newValue, of: self, \.text, at: 0, named: "text")
                        }
                    }

                    private var _text: Folio._PersistedPropertyMarker

                    \#(backingDataMembers(of: "Note", access: "package "))

                    package static var schemaMetadata: [Folio.Schema.PropertyMetadata] {
                        [
                            Folio.Schema.PropertyMetadata("text", \Note.text)
                        ]
                    }

                    \#(backingDataInitializer(markers: ["text"], access: "package "))

                    package init(text: String) {
                        self.text = text
                    }

                    \#(unregisteringDeinit(of: "Note", access: "package "))
                }

                extension Note: Folio.PersistentModel, Observation.Observable {
                }
                """#
        )
    }

    @Test("Initial values become schema defaults and memberwise defaults; optionals default to nil")
    func defaults() {
        assertExpansion(
            """
            @Model
            final class Trip {
                var rating: Int = 3
                var budget: Decimal?
                var stops: [Stop] = []
            }
            """,
            expandedSource: #"""
                final class Trip {
                    var rating: Int {
                        @storageRestrictions(accesses: _$backingData, initializes: _rating)
                        init(initialValue) {
                            Folio.BackingData._initialize(&_$backingData, initialValue, at: 0, named: "rating")
                            _rating = Folio._PersistedPropertyMarker()
                        }
                        get {
                            Folio.BackingData._reading(&_$backingData) {
                                $0.value(of: self, {
                                        \.rating
                                    }, at: 0, named: "rating")
                            }
                        }
                        set {
                            _$backingData.setValue(newValue, of: self, \.rating, at: 0, named: "rating")
                        }
                    }

                    private var _rating: Folio._PersistedPropertyMarker
                    var budget: Decimal? {
                        @storageRestrictions(accesses: _$backingData, initializes: _budget)
                        init(initialValue) {
                            Folio.BackingData._initialize(&_$backingData, initialValue, at: 1, named: "budget")
                            _budget = Folio._PersistedPropertyMarker()
                        }
                        get {
                            Folio.BackingData._reading(&_$backingData) {
                                $0.value(of: self, {
                                        \.budget
                                    }, at: 1, named: "budget")
                            }
                        }
                        set {
                            _$backingData.setValue(newValue, of: self, \.budget, at: 1, named: "budget")
                        }
                    }

                    private var _budget: Folio._PersistedPropertyMarker
                    var stops: [Stop] {
                        @storageRestrictions(accesses: _$backingData, initializes: _stops)
                        init(initialValue) {
                            Folio.BackingData._initialize(&_$backingData, initialValue, at: 2, named: "stops")
                            _stops = Folio._PersistedPropertyMarker()
                        }
                        get {
                            Folio.BackingData._reading(&_$backingData) {
                                $0.value(of: self, {
                                        \.stops
                                    }, at: 2, named: "stops")
                            }
                        }
                        set {
                            _$backingData.setValue(newValue, of: self, \.stops, at: 2, named: "stops")
                        }
                    }

                    private var _stops: Folio._PersistedPropertyMarker

                    \#(backingDataMembers(of: "Trip"))

                    static var schemaMetadata: [Folio.Schema.PropertyMetadata] {
                        [
                            Folio.Schema.PropertyMetadata("rating", \Trip.rating, defaultValue: 3),
                            Folio.Schema.PropertyMetadata("budget", \Trip.budget),
                            Folio.Schema.PropertyMetadata("stops", \Trip.stops, defaultValue: [])
                        ]
                    }

                    \#(backingDataInitializer(markers: ["rating", "budget", "stops"]))

                    init(rating: Int = 3, budget: Decimal? = nil, stops: [Stop] = []) {
                        self.rating = rating
                        self.budget = budget
                        self.stops = stops
                    }

                    \#(unregisteringDeinit(of: "Trip"))
                }

                extension Trip: Folio.PersistentModel, Observation.Observable {
                }
                """#
        )
    }

    @Test("Attribute options and a positional delete rule are forwarded to the metadata; hashModifier is dropped")
    func forwardedArguments() {
        assertExpansion(
            #"""
            @Model
            final class Trip {
                @Attribute(.externalStorage, originalName: "image") var photo: Data?
                @Relationship(.cascade, hashModifier: "v2") var accommodation: Accommodation?
                @Relationship(deleteRule: .deny, minimumModelCount: 1, maximumModelCount: 5, originalName: "legs", inverse: \Stop.trip)
                var stops: [Stop] = []
            }
            """#,
            expandedSource: #"""
                final class Trip {
                    var photo: Data? {
                        @storageRestrictions(accesses: _$backingData, initializes: _photo)
                        init(initialValue) {
                            Folio.BackingData._initialize(&_$backingData, initialValue, at: 0, named: "photo")
                            _photo = Folio._PersistedPropertyMarker()
                        }
                        get {
                            Folio.BackingData._reading(&_$backingData) {
                                $0.value(of: self, {
                                        \.photo
                                    }, at: 0, named: "photo")
                            }
                        }
                        set {
                            _$backingData.setValue(newValue, of: self, \.photo, at: 0, named: "photo")
                        }
                    }

                    private var _photo: Folio._PersistedPropertyMarker
                    var accommodation: Accommodation? {
                        @storageRestrictions(accesses: _$backingData, initializes: _accommodation)
                        init(initialValue) {
                            Folio.BackingData._initialize(&_$backingData, initialValue, at: 1, named: "accommodation")
                            _accommodation = Folio._PersistedPropertyMarker()
                        }
                        get {
                            Folio.BackingData._reading(&_$backingData) {
                                $0.value(of: self, {
                                        \.accommodation
                                    }, at: 1, named: "accommodation")
                            }
                        }
                        set {
                            _$backingData.setValue(newValue, of: self, \.accommodation, at: 1, named: "accommodation")
                        }
                    }

                    private var _accommodation: Folio._PersistedPropertyMarker
                    var stops: [Stop] {
                        @storageRestrictions(accesses: _$backingData, initializes: _stops)
                        init(initialValue) {
                            Folio.BackingData._initialize(&_$backingData, initialValue, at: 2, named: "stops")
                            _stops = Folio._PersistedPropertyMarker()
                        }
                        get {
                            Folio.BackingData._reading(&_$backingData) {
                                $0.value(of: self, {
                                        \.stops
                                    }, at: 2, named: "stops")
                            }
                        }
                        set {
                            _$backingData.setValue(newValue, of: self, \.stops, at: 2, named: "stops")
                        }
                    }

                    private var _stops: Folio._PersistedPropertyMarker

                    \#(backingDataMembers(of: "Trip"))

                    static var schemaMetadata: [Folio.Schema.PropertyMetadata] {
                        [
                            Folio.Schema.PropertyMetadata("photo", \Trip.photo, attribute: .init(.externalStorage, originalName: "image")),
                            Folio.Schema.PropertyMetadata("accommodation", \Trip.accommodation, deleteRule: .cascade),
                            Folio.Schema.PropertyMetadata("stops", \Trip.stops, deleteRule: .deny, minimumModelCount: 1, maximumModelCount: 5, originalName: "legs", inverse: \Stop.trip, inverseName: "trip")
                        ]
                    }

                    \#(backingDataInitializer(markers: ["photo", "accommodation", "stops"]))

                    init(photo: Data? = nil, accommodation: Accommodation? = nil, stops: [Stop] = []) {
                        self.photo = photo
                        self.accommodation = accommodation
                        self.stops = stops
                    }

                    \#(unregisteringDeinit(of: "Trip"))
                }

                extension Trip: Folio.PersistentModel, Observation.Observable {
                }
                """#
        )
    }

    @Test("Computed, static and lazy properties and @Transient constants are left as written")
    func nonPersistedProperties() {
        assertExpansion(
            """
            @Model
            final class Item {
                var title: String
                var shout: String { title.uppercased() }
                static var kind = "item"
                lazy var cache: [String] = []
                @Transient let createdBy = "me"
            }
            """,
            expandedSource: #"""
                final class Item {
                    var title: String {
                        @storageRestrictions(accesses: _$backingData, initializes: _title)
                        init(initialValue) {
                            Folio.BackingData._initialize(&_$backingData, initialValue, at: 0, named: "title")
                            _title = Folio._PersistedPropertyMarker()
                        }
                        get {
                            Folio.BackingData._reading(&_$backingData) {
                                $0.value(of: self, {
                                        \.title
                                    }, at: 0, named: "title")
                            }
                        }
                        set {
                            _$backingData.setValue(newValue, of: self, \.title, at: 0, named: "title")
                        }
                    }

                    private var _title: Folio._PersistedPropertyMarker
                    var shout: String { title.uppercased() }
                    static var kind = "item"
                    lazy var cache: [String] = []
                    let createdBy = "me"

                    \#(backingDataMembers(of: "Item"))

                    static var schemaMetadata: [Folio.Schema.PropertyMetadata] {
                        [
                            Folio.Schema.PropertyMetadata("title", \Item.title)
                        ]
                    }

                    \#(backingDataInitializer(markers: ["title"]))

                    init(title: String) {
                        self.title = title
                    }

                    \#(unregisteringDeinit(of: "Item"))
                }

                extension Item: Folio.PersistentModel, Observation.Observable {
                }
                """#
        )
    }

    @Test("A property whose name starts with an underscore is persisted like any other")
    func underscoredName() {
        assertExpansion(
            """
            @Model
            final class Item {
                var _rank: Int = 0
            }
            """,
            expandedSource: #"""
                final class Item {
                    var _rank: Int {
                        @storageRestrictions(accesses: _$backingData, initializes: __rank)
                        init(initialValue) {
                            Folio.BackingData._initialize(&_$backingData, initialValue, at: 0, named: "_rank")
                            __rank = Folio._PersistedPropertyMarker()
                        }
                        get {
                            Folio.BackingData._reading(&_$backingData) {
                                $0.value(of: self, {
                                        \._rank
                                    }, at: 0, named: "_rank")
                            }
                        }
                        set {
                            _$backingData.setValue(newValue, of: self, \._rank, at: 0, named: "_rank")
                        }
                    }

                    private var __rank: Folio._PersistedPropertyMarker

                    \#(backingDataMembers(of: "Item"))

                    static var schemaMetadata: [Folio.Schema.PropertyMetadata] {
                        [
                            Folio.Schema.PropertyMetadata("_rank", \Item._rank, defaultValue: 0)
                        ]
                    }

                    \#(backingDataInitializer(markers: ["_rank"]))

                    init(_rank: Int = 0) {
                        self._rank = _rank
                    }

                    \#(unregisteringDeinit(of: "Item"))
                }

                extension Item: Folio.PersistentModel, Observation.Observable {
                }
                """#
        )
    }

    @Test("A property named with backticks is stored under its plain name and spelled with them in code")
    func backtickedName() {
        assertExpansion(
            """
            @Model
            final class Lesson {
                var `class`: String
            }
            """,
            expandedSource: #"""
                final class Lesson {
                    var `class`: String {
                        @storageRestrictions(accesses: _$backingData, initializes: _class)
                        init(initialValue) {
                            Folio.BackingData._initialize(&_$backingData, initialValue, at: 0, named: "class")
                            _class = Folio._PersistedPropertyMarker()
                        }
                        get {
                            Folio.BackingData._reading(&_$backingData) {
                                $0.value(of: self, {
                                        \.`class`
                                    }, at: 0, named: "class")
                            }
                        }
                        set {
                            _$backingData.setValue(newValue, of: self, \.`class`, at: 0, named: "class")
                        }
                    }

                    private var _class: Folio._PersistedPropertyMarker

                    \#(backingDataMembers(of: "Lesson"))

                    static var schemaMetadata: [Folio.Schema.PropertyMetadata] {
                        [
                            Folio.Schema.PropertyMetadata("class", \Lesson.`class`)
                        ]
                    }

                    \#(backingDataInitializer(markers: ["class"]))

                    init(`class`: String) {
                        self.`class` = `class`
                    }

                    \#(unregisteringDeinit(of: "Lesson"))
                }

                extension Lesson: Folio.PersistentModel, Observation.Observable {
                }
                """#
        )
    }

    @Test("A model with no persisted properties has empty metadata and an empty memberwise initializer")
    func emptyModel() {
        assertExpansion(
            """
            @Model
            final class Marker {
            }
            """,
            expandedSource: expansionWithoutPersistedProperties(of: "Marker")
        )
    }

    @Test(
        "A class whose stored properties start as literals may have its models made on any thread; a call or other expression keeps them on the fetching thread"
    )
    func modelsMadeAnywhereOnlyWithLiteralInitialValues() {
        for (declarations, literal) in [
            ("@Transient var hits = 0\n    @Transient var tags: [String] = [\"a\", \"b\"]\n    @Transient var offset = -1.5", true),
            ("@Transient var byName = [String: Int]()\n    @Transient var state: Mode = .idle\n    @Transient var note: String? = nil", true),
            ("@Transient var hits = 0\n    @Transient var made = Date()", false),
            ("@Transient var label = \"\\(1)\"", false),
            ("@Transient var ids = [nextID()]", false),
            // A property wrapper's initializer runs whatever it says, whatever the initial value.
            ("@Transient @Counted var hits = 0", false),
            ("@Transient @ObservationIgnored var hits = 0", true),
        ] {
            assertExpansion(
                """
                @Model
                final class Cache {
                    \(declarations)
                }
                """,
                expandedSource: expansionWithoutPersistedProperties(
                    of: "Cache", members: declarations.replacingOccurrences(of: "@Transient ", with: ""),
                    literalInitialValues: literal)
            )
        }
    }

    @Test("A @MainActor class conforms on the main actor; a nonisolated one's extension is nonisolated, whatever the module's default isolation")
    func conformanceIsolatedLikeTheClass() {
        for (attribute, modifier, conformance) in [
            ("@MainActor\n", "", "extension Cache: @MainActor Folio.PersistentModel, Observation.Observable {"),
            ("", "nonisolated ", "nonisolated extension Cache: Folio.PersistentModel, Observation.Observable {"),
            ("", "", "extension Cache: Folio.PersistentModel, Observation.Observable {"),
            // The module-qualified spelling names the same actor: a nonisolated conformance does not compile.
            ("@_Concurrency.MainActor\n", "", "extension Cache: @MainActor Folio.PersistentModel, Observation.Observable {"),
        ] {
            assertExpansion(
                """
                \(attribute)@Model
                \(modifier)final class Cache {
                }
                """,
                expandedSource: expansionWithoutPersistedProperties(
                    of: "Cache", head: "\(attribute)\(modifier)final class Cache {", conformance: conformance)
            )
        }
    }
}
