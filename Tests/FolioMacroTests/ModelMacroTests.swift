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
                    @storageRestrictions(initializes: _name)
                    init(initialValue) {
                        _name = Folio._PersistedStorage(initialValue)
                    }
                    get {
                        _$backingData.value(of: self, \.name, at: 0, named: "name", unmanaged: _name)
                    }
                    set {
                        _$backingData.setValue(newValue, of: self, \.name, at: 0, named: "name", unmanaged: _name)
                    }
                }

                private var _name: Folio._PersistedStorage
                var code: String {
                    @storageRestrictions(initializes: _code)
                    init(initialValue) {
                        _code = Folio._PersistedStorage(initialValue)
                    }
                    get {
                        _$backingData.value(of: self, \.code, at: 1, named: "code", unmanaged: _code)
                    }
                    set {
                        _$backingData.setValue(newValue, of: self, \.code, at: 1, named: "code", unmanaged: _code)
                    }
                }

                private var _code: Folio._PersistedStorage
                var animals {
                    @storageRestrictions(initializes: _animals)
                    init(initialValue) {
                        _animals = Folio._PersistedStorage(initialValue)
                    }
                    get {
                        _$backingData.value(of: self, \.animals, at: 2, named: "animals", unmanaged: _animals)
                    }
                    set {
                        _$backingData.setValue(newValue, of: self, \.animals, at: 2, named: "animals", unmanaged: _animals)
                    }
                }

                private var _animals: Folio._PersistedStorage
                var keeper: Keeper? {
                    @storageRestrictions(initializes: _keeper)
                    init(initialValue) {
                        _keeper = Folio._PersistedStorage(initialValue)
                    }
                    get {
                        _$backingData.value(of: self, \.keeper, at: 3, named: "keeper", unmanaged: _keeper)
                    }
                    set {
                        _$backingData.setValue(newValue, of: self, \.keeper, at: 3, named: "keeper", unmanaged: _keeper)
                    }
                }

                private var _keeper: Folio._PersistedStorage
                var visitorsToday = 0

                private var _$backingData = Folio.BackingData()

                var persistentBackingData: Folio.BackingData {
                    get {
                        _$backingData
                    }
                    set {
                        _$backingData = newValue
                    }
                }

                static var schemaMetadata: [Folio.Schema.PropertyMetadata] {
                    [
                        Folio.Schema.PropertyMetadata("name", \Zoo.name),
                        Folio.Schema.PropertyMetadata("code", \Zoo.code, attribute: .init(.unique)),
                        Folio.Schema.PropertyMetadata("animals", \Zoo.animals, deleteRule: .cascade, inverse: \Animal.zoo, inverseName: "zoo"),
                        Folio.Schema.PropertyMetadata("keeper", \Zoo.keeper)
                    ]
                }

                required init(backingData: Folio.BackingData) {
                    self._$backingData = backingData
                    self._name = Folio._PersistedStorage.unused
                    self._code = Folio._PersistedStorage.unused
                    self._animals = Folio._PersistedStorage.unused
                    self._keeper = Folio._PersistedStorage.unused
                }

                init(name: String, code: String, keeper: Keeper? = nil) {
                    self.name = name
                    self.code = code
                    self.keeper = keeper
                }
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
                    @storageRestrictions(initializes: _name)
                    init(initialValue) {
                        _name = Folio._PersistedStorage(initialValue)
                    }
                    get {
                        _$backingData.value(of: self, \.name, at: 0, named: "name", unmanaged: _name)
                    }
                    set {
                        _$backingData.setValue(newValue, of: self, \.name, at: 0, named: "name", unmanaged: _name)
                    }
                }

                private var _name: Folio._PersistedStorage
                var visited: Bool {
                    @storageRestrictions(initializes: _visited)
                    init(initialValue) {
                        _visited = Folio._PersistedStorage(initialValue)
                    }
                    get {
                        _$backingData.value(of: self, \.visited, at: 1, named: "visited", unmanaged: _visited)
                    }
                    set {
                        _$backingData.setValue(newValue, of: self, \.visited, at: 1, named: "visited", unmanaged: _visited)
                    }
                }

                private var _visited: Folio._PersistedStorage

                init(name: String, visited: Bool = false) {
                    self.name = name
                    self.visited = visited
                }

                private var _$backingData = Folio.BackingData()

                var persistentBackingData: Folio.BackingData {
                    get {
                        _$backingData
                    }
                    set {
                        _$backingData = newValue
                    }
                }

                static var schemaMetadata: [Folio.Schema.PropertyMetadata] {
                    [
                        Folio.Schema.PropertyMetadata("name", \Country.name),
                        Folio.Schema.PropertyMetadata("visited", \Country.visited)
                    ]
                }

                required init(backingData: Folio.BackingData) {
                    self._$backingData = backingData
                    self._name = Folio._PersistedStorage.unused
                    self._visited = Folio._PersistedStorage.unused
                }
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
                    @storageRestrictions(initializes: _text)
                    init(initialValue) {
                        _text = Folio._PersistedStorage(initialValue)
                    }
                    get {
                        _$backingData.value(of: self, \.text, at: 0, named: "text", unmanaged: _text)
                    }
                    set {
                        _$backingData.setValue(newValue, of: self, \.text, at: 0, named: "text", unmanaged: _text)
                    }
                }

                private var _text: Folio._PersistedStorage

                private var _$backingData = Folio.BackingData()

                public var persistentBackingData: Folio.BackingData {
                    get {
                        _$backingData
                    }
                    set {
                        _$backingData = newValue
                    }
                }

                public static var schemaMetadata: [Folio.Schema.PropertyMetadata] {
                    [
                        Folio.Schema.PropertyMetadata("text", \Note.text)
                    ]
                }

                public required init(backingData: Folio.BackingData) {
                    self._$backingData = backingData
                    self._text = Folio._PersistedStorage.unused
                }

                public init(text: String) {
                    self.text = text
                }
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
                    @storageRestrictions(initializes: _text)
                    init(initialValue) {
                        _text = Folio._PersistedStorage(initialValue)
                    }
                    get {
                        _$backingData.value(of: self, \.text, at: 0, named: "text", unmanaged: _text)
                    }
                    set {
                        _$backingData.setValue(newValue, of: self, \.text, at: 0, named: "text", unmanaged: _text)
                    }
                }

                private var _text: Folio._PersistedStorage

                private var _$backingData = Folio.BackingData()

                package var persistentBackingData: Folio.BackingData {
                    get {
                        _$backingData
                    }
                    set {
                        _$backingData = newValue
                    }
                }

                package static var schemaMetadata: [Folio.Schema.PropertyMetadata] {
                    [
                        Folio.Schema.PropertyMetadata("text", \Note.text)
                    ]
                }

                package required init(backingData: Folio.BackingData) {
                    self._$backingData = backingData
                    self._text = Folio._PersistedStorage.unused
                }

                package init(text: String) {
                    self.text = text
                }
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
                    @storageRestrictions(initializes: _rating)
                    init(initialValue) {
                        _rating = Folio._PersistedStorage(initialValue)
                    }
                    get {
                        _$backingData.value(of: self, \.rating, at: 0, named: "rating", unmanaged: _rating)
                    }
                    set {
                        _$backingData.setValue(newValue, of: self, \.rating, at: 0, named: "rating", unmanaged: _rating)
                    }
                }

                private var _rating: Folio._PersistedStorage
                var budget: Decimal? {
                    @storageRestrictions(initializes: _budget)
                    init(initialValue) {
                        _budget = Folio._PersistedStorage(initialValue)
                    }
                    get {
                        _$backingData.value(of: self, \.budget, at: 1, named: "budget", unmanaged: _budget)
                    }
                    set {
                        _$backingData.setValue(newValue, of: self, \.budget, at: 1, named: "budget", unmanaged: _budget)
                    }
                }

                private var _budget: Folio._PersistedStorage
                var stops: [Stop] {
                    @storageRestrictions(initializes: _stops)
                    init(initialValue) {
                        _stops = Folio._PersistedStorage(initialValue)
                    }
                    get {
                        _$backingData.value(of: self, \.stops, at: 2, named: "stops", unmanaged: _stops)
                    }
                    set {
                        _$backingData.setValue(newValue, of: self, \.stops, at: 2, named: "stops", unmanaged: _stops)
                    }
                }

                private var _stops: Folio._PersistedStorage

                private var _$backingData = Folio.BackingData()

                var persistentBackingData: Folio.BackingData {
                    get {
                        _$backingData
                    }
                    set {
                        _$backingData = newValue
                    }
                }

                static var schemaMetadata: [Folio.Schema.PropertyMetadata] {
                    [
                        Folio.Schema.PropertyMetadata("rating", \Trip.rating, defaultValue: 3),
                        Folio.Schema.PropertyMetadata("budget", \Trip.budget),
                        Folio.Schema.PropertyMetadata("stops", \Trip.stops, defaultValue: [])
                    ]
                }

                required init(backingData: Folio.BackingData) {
                    self._$backingData = backingData
                    self._rating = Folio._PersistedStorage.unused
                    self._budget = Folio._PersistedStorage.unused
                    self._stops = Folio._PersistedStorage.unused
                }

                init(rating: Int = 3, budget: Decimal? = nil, stops: [Stop] = []) {
                    self.rating = rating
                    self.budget = budget
                    self.stops = stops
                }
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
                    @storageRestrictions(initializes: _photo)
                    init(initialValue) {
                        _photo = Folio._PersistedStorage(initialValue)
                    }
                    get {
                        _$backingData.value(of: self, \.photo, at: 0, named: "photo", unmanaged: _photo)
                    }
                    set {
                        _$backingData.setValue(newValue, of: self, \.photo, at: 0, named: "photo", unmanaged: _photo)
                    }
                }

                private var _photo: Folio._PersistedStorage
                var accommodation: Accommodation? {
                    @storageRestrictions(initializes: _accommodation)
                    init(initialValue) {
                        _accommodation = Folio._PersistedStorage(initialValue)
                    }
                    get {
                        _$backingData.value(of: self, \.accommodation, at: 1, named: "accommodation", unmanaged: _accommodation)
                    }
                    set {
                        _$backingData.setValue(newValue, of: self, \.accommodation, at: 1, named: "accommodation", unmanaged: _accommodation)
                    }
                }

                private var _accommodation: Folio._PersistedStorage
                var stops: [Stop] {
                    @storageRestrictions(initializes: _stops)
                    init(initialValue) {
                        _stops = Folio._PersistedStorage(initialValue)
                    }
                    get {
                        _$backingData.value(of: self, \.stops, at: 2, named: "stops", unmanaged: _stops)
                    }
                    set {
                        _$backingData.setValue(newValue, of: self, \.stops, at: 2, named: "stops", unmanaged: _stops)
                    }
                }

                private var _stops: Folio._PersistedStorage

                private var _$backingData = Folio.BackingData()

                var persistentBackingData: Folio.BackingData {
                    get {
                        _$backingData
                    }
                    set {
                        _$backingData = newValue
                    }
                }

                static var schemaMetadata: [Folio.Schema.PropertyMetadata] {
                    [
                        Folio.Schema.PropertyMetadata("photo", \Trip.photo, attribute: .init(.externalStorage, originalName: "image")),
                        Folio.Schema.PropertyMetadata("accommodation", \Trip.accommodation, deleteRule: .cascade),
                        Folio.Schema.PropertyMetadata("stops", \Trip.stops, deleteRule: .deny, minimumModelCount: 1, maximumModelCount: 5, originalName: "legs", inverse: \Stop.trip, inverseName: "trip")
                    ]
                }

                required init(backingData: Folio.BackingData) {
                    self._$backingData = backingData
                    self._photo = Folio._PersistedStorage.unused
                    self._accommodation = Folio._PersistedStorage.unused
                    self._stops = Folio._PersistedStorage.unused
                }

                init(photo: Data? = nil, accommodation: Accommodation? = nil, stops: [Stop] = []) {
                    self.photo = photo
                    self.accommodation = accommodation
                    self.stops = stops
                }
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
                    @storageRestrictions(initializes: _title)
                    init(initialValue) {
                        _title = Folio._PersistedStorage(initialValue)
                    }
                    get {
                        _$backingData.value(of: self, \.title, at: 0, named: "title", unmanaged: _title)
                    }
                    set {
                        _$backingData.setValue(newValue, of: self, \.title, at: 0, named: "title", unmanaged: _title)
                    }
                }

                private var _title: Folio._PersistedStorage
                var shout: String { title.uppercased() }
                static var kind = "item"
                lazy var cache: [String] = []
                let createdBy = "me"

                private var _$backingData = Folio.BackingData()

                var persistentBackingData: Folio.BackingData {
                    get {
                        _$backingData
                    }
                    set {
                        _$backingData = newValue
                    }
                }

                static var schemaMetadata: [Folio.Schema.PropertyMetadata] {
                    [
                        Folio.Schema.PropertyMetadata("title", \Item.title)
                    ]
                }

                required init(backingData: Folio.BackingData) {
                    self._$backingData = backingData
                    self._title = Folio._PersistedStorage.unused
                }

                init(title: String) {
                    self.title = title
                }
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
                    @storageRestrictions(initializes: __rank)
                    init(initialValue) {
                        __rank = Folio._PersistedStorage(initialValue)
                    }
                    get {
                        _$backingData.value(of: self, \._rank, at: 0, named: "_rank", unmanaged: __rank)
                    }
                    set {
                        _$backingData.setValue(newValue, of: self, \._rank, at: 0, named: "_rank", unmanaged: __rank)
                    }
                }

                private var __rank: Folio._PersistedStorage

                private var _$backingData = Folio.BackingData()

                var persistentBackingData: Folio.BackingData {
                    get {
                        _$backingData
                    }
                    set {
                        _$backingData = newValue
                    }
                }

                static var schemaMetadata: [Folio.Schema.PropertyMetadata] {
                    [
                        Folio.Schema.PropertyMetadata("_rank", \Item._rank, defaultValue: 0)
                    ]
                }

                required init(backingData: Folio.BackingData) {
                    self._$backingData = backingData
                    self.__rank = Folio._PersistedStorage.unused
                }

                init(_rank: Int = 0) {
                    self._rank = _rank
                }
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
                    @storageRestrictions(initializes: _class)
                    init(initialValue) {
                        _class = Folio._PersistedStorage(initialValue)
                    }
                    get {
                        _$backingData.value(of: self, \.`class`, at: 0, named: "class", unmanaged: _class)
                    }
                    set {
                        _$backingData.setValue(newValue, of: self, \.`class`, at: 0, named: "class", unmanaged: _class)
                    }
                }

                private var _class: Folio._PersistedStorage

                private var _$backingData = Folio.BackingData()

                var persistentBackingData: Folio.BackingData {
                    get {
                        _$backingData
                    }
                    set {
                        _$backingData = newValue
                    }
                }

                static var schemaMetadata: [Folio.Schema.PropertyMetadata] {
                    [
                        Folio.Schema.PropertyMetadata("class", \Lesson.`class`)
                    ]
                }

                required init(backingData: Folio.BackingData) {
                    self._$backingData = backingData
                    self._class = Folio._PersistedStorage.unused
                }

                init(`class`: String) {
                    self.`class` = `class`
                }
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
            expandedSource: """
            final class Marker {

                private var _$backingData = Folio.BackingData()

                var persistentBackingData: Folio.BackingData {
                    get {
                        _$backingData
                    }
                    set {
                        _$backingData = newValue
                    }
                }

                static var schemaMetadata: [Folio.Schema.PropertyMetadata] {
                    []
                }

                required init(backingData: Folio.BackingData) {
                    self._$backingData = backingData
                }

                init() {
                }
            }

            extension Marker: Folio.PersistentModel, Observation.Observable {
            }
            """
        )
    }
}
