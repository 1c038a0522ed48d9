import SwiftSyntaxMacrosGenericTestSupport
import Testing

/// Misuses of the model macros, each reported where it is written and, where
/// there is one obvious mend, with a fix-it that makes it.
@Suite struct ModelDiagnosticsTests {
    @Test("@Model on a struct is an error whose fix-it makes it a class")
    func modelOnStruct() {
        assertExpansion(
            """
            @Model
            struct Point {
                var x: Int
            }
            """,
            expandedSource: """
                struct Point {
                    var x: Int
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "'@Model' can only be applied to a class; models have identity and are shared by reference",
                    line: 1, column: 1, fixIts: [FixItSpec(message: "Make it a class")])
            ],
            fixedSource: """
                @Model
                class Point {
                    var x: Int
                }
                """
        )
    }

    @Test("@Model on an enum is an error with no fix-it")
    func modelOnEnum() {
        assertExpansion(
            """
            @Model
            enum Diet {
                case herbivorous
            }
            """,
            expandedSource: """
                enum Diet {
                    case herbivorous
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "'@Model' can only be applied to a class; models have identity and are shared by reference",
                    line: 1, column: 1)
            ]
        )
    }

    @Test("@Model on a generic class is an error at its generic parameters, and the class is left as written")
    func modelOnGenericClass() {
        assertExpansion(
            """
            @Model
            final class Box<Content> {
                var content: Content
            }
            """,
            expandedSource: """
                final class Box<Content> {
                    var content: Content
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "'@Model' does not support generic classes; each model class is one entity",
                    line: 2, column: 16)
            ]
        )
    }

    @Test("A let property is an error whose fix-it makes it a var; the rest of the model still expands")
    func letProperty() {
        assertExpansion(
            """
            @Model
            final class Book {
                let isbn: String
                var title: String
            }
            """,
            expandedSource: #"""
                final class Book {
                    let isbn: String
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

                    \#(backingDataMembers(of: "Book"))

                    static var schemaMetadata: [Folio.Schema.PropertyMetadata] {
                        [
                            Folio.Schema.PropertyMetadata("title", \Book.title)
                        ]
                    }

                    \#(backingDataInitializer(markers: ["title"]))

                    init(title: String) {
                        self.title = title
                    }

                    \#(unregisteringDeinit(of: "Book"))
                }

                extension Book: Folio.PersistentModel, Observation.Observable {
                }
                """#,
            diagnostics: [
                DiagnosticSpec(
                    message:
                        "a model's stored properties must be 'var' so the context can track and undo changes; use '@Transient' for a constant that is never saved",
                    line: 3, column: 5, fixIts: [FixItSpec(message: "Replace 'let' with 'var'")])
            ],
            fixedSource: """
                @Model
                final class Book {
                    var isbn: String
                    var title: String
                }
                """
        )
    }

    @Test("A relationship to a value type is an error whose fix-it removes the @Relationship, on its line or above it")
    func relationshipToValue() {
        assertExpansion(
            """
            @Model
            final class Post {
                @Relationship var tags: [String]
                @Relationship(deleteRule: .cascade)
                var scores: [Int]
            }
            """,
            expandedSource: #"""
                final class Post {
                    var tags: [String] {
                        @storageRestrictions(accesses: _$backingData, initializes: _tags)
                        init(initialValue) {
                            Folio.BackingData._initialize(&_$backingData, initialValue, at: 0, named: "tags")
                            _tags = Folio._PersistedPropertyMarker()
                        }
                        get {
                            Folio.BackingData._reading(&_$backingData) {
                                $0.value(of: self, {
                                        \.tags
                                    }, at: 0, named: "tags")
                            }
                        }
                        set {
                            _$backingData.setValue(newValue, of: self, \.tags, at: 0, named: "tags")
                        }
                    }

                    private var _tags: Folio._PersistedPropertyMarker
                    var scores: [Int] {
                        @storageRestrictions(accesses: _$backingData, initializes: _scores)
                        init(initialValue) {
                            Folio.BackingData._initialize(&_$backingData, initialValue, at: 1, named: "scores")
                            _scores = Folio._PersistedPropertyMarker()
                        }
                        get {
                            Folio.BackingData._reading(&_$backingData) {
                                $0.value(of: self, {
                                        \.scores
                                    }, at: 1, named: "scores")
                            }
                        }
                        set {
                            _$backingData.setValue(newValue, of: self, \.scores, at: 1, named: "scores")
                        }
                    }

                    private var _scores: Folio._PersistedPropertyMarker

                    \#(backingDataMembers(of: "Post"))

                    static var schemaMetadata: [Folio.Schema.PropertyMetadata] {
                        [
                            Folio.Schema.PropertyMetadata("tags", \Post.tags),
                            Folio.Schema.PropertyMetadata("scores", \Post.scores, deleteRule: .cascade)
                        ]
                    }

                    \#(backingDataInitializer(markers: ["tags", "scores"]))

                    init(tags: [String], scores: [Int]) {
                        self.tags = tags
                        self.scores = scores
                    }

                    \#(unregisteringDeinit(of: "Post"))
                }

                extension Post: Folio.PersistentModel, Observation.Observable {
                }
                """#,
            diagnostics: [
                DiagnosticSpec(
                    message: "'@Relationship' needs a model type (a '@Model' class, an optional of one, or an array of them); use '@Attribute' for values",
                    line: 3, column: 5, fixIts: [FixItSpec(message: "Remove '@Relationship'")]),
                DiagnosticSpec(
                    message: "'@Relationship' needs a model type (a '@Model' class, an optional of one, or an array of them); use '@Attribute' for values",
                    line: 4, column: 5, fixIts: [FixItSpec(message: "Remove '@Relationship'")]),
            ],
            fixedSource: """
                @Model
                final class Post {
                    var tags: [String]
                    var scores: [Int]
                }
                """
        )
    }

    @Test("A required to-one relationship, as SwiftData accepts it, expands as an optional one does, with no diagnostic")
    func requiredToOne() {
        assertExpansion(
            """
            @Model
            final class Dog {
                @Relationship var owner: Person
            }
            """,
            expandedSource: #"""
                final class Dog {
                    var owner: Person {
                        @storageRestrictions(accesses: _$backingData, initializes: _owner)
                        init(initialValue) {
                            Folio.BackingData._initialize(&_$backingData, initialValue, at: 0, named: "owner")
                            _owner = Folio._PersistedPropertyMarker()
                        }
                        get {
                            Folio.BackingData._reading(&_$backingData) {
                                $0.value(of: self, {
                                        \.owner
                                    }, at: 0, named: "owner")
                            }
                        }
                        set {
                            _$backingData.setValue(newValue, of: self, \.owner, at: 0, named: "owner")
                        }
                    }

                    private var _owner: Folio._PersistedPropertyMarker

                    \#(backingDataMembers(of: "Dog"))

                    static var schemaMetadata: [Folio.Schema.PropertyMetadata] {
                        [
                            Folio.Schema.PropertyMetadata("owner", \Dog.owner)
                        ]
                    }

                    \#(backingDataInitializer(markers: ["owner"]))

                    init(owner: Person) {
                        self.owner = owner
                    }

                    \#(unregisteringDeinit(of: "Dog"))
                }

                extension Dog: Folio.PersistentModel, Observation.Observable {
                }
                """#
        )
    }

    @Test("An inverse key path rooted in another class than the destination is an error whose fix-it roots it in the destination")
    func inverseOfWrongClass() {
        assertExpansion(
            #"""
            @Model
            final class Person {
                @Relationship(inverse: \Dog.owner) var pets: [Cat]
            }
            """#,
            expandedSource: #"""
                final class Person {
                    var pets: [Cat] {
                        @storageRestrictions(accesses: _$backingData, initializes: _pets)
                        init(initialValue) {
                            Folio.BackingData._initialize(&_$backingData, initialValue, at: 0, named: "pets")
                            _pets = Folio._PersistedPropertyMarker()
                        }
                        get {
                            Folio.BackingData._reading(&_$backingData) {
                                $0.value(of: self, {
                                        \.pets
                                    }, at: 0, named: "pets")
                            }
                        }
                        set {
                            _$backingData.setValue(newValue, of: self, \.pets, at: 0, named: "pets")
                        }
                    }

                    private var _pets: Folio._PersistedPropertyMarker

                    \#(backingDataMembers(of: "Person"))

                    static var schemaMetadata: [Folio.Schema.PropertyMetadata] {
                        [
                            Folio.Schema.PropertyMetadata("pets", \Person.pets, inverse: \Dog.owner, inverseName: "owner")
                        ]
                    }

                    \#(backingDataInitializer(markers: ["pets"]))

                    init(pets: [Cat]) {
                        self.pets = pets
                    }

                    \#(unregisteringDeinit(of: "Person"))
                }

                extension Person: Folio.PersistentModel, Observation.Observable {
                }
                """#,
            diagnostics: [
                DiagnosticSpec(
                    message: "the inverse must be a property of 'Cat', the relationship's destination, not of 'Dog'",
                    line: 3, column: 29, fixIts: [FixItSpec(message: #"Use '\Cat.owner'"#)])
            ],
            fixedSource: #"""
                @Model
                final class Person {
                    @Relationship(inverse: \Cat.owner) var pets: [Cat]
                }
                """#
        )
    }

    @Test("A module-qualified destination is not mistaken for another class than the inverse's root")
    func qualifiedDestination() {
        assertExpansion(
            #"""
            @Model
            final class Person {
                @Relationship(inverse: \Cat.owner) var pets: [Pets.Cat]
            }
            """#,
            expandedSource: #"""
                final class Person {
                    var pets: [Pets.Cat] {
                        @storageRestrictions(accesses: _$backingData, initializes: _pets)
                        init(initialValue) {
                            Folio.BackingData._initialize(&_$backingData, initialValue, at: 0, named: "pets")
                            _pets = Folio._PersistedPropertyMarker()
                        }
                        get {
                            Folio.BackingData._reading(&_$backingData) {
                                $0.value(of: self, {
                                        \.pets
                                    }, at: 0, named: "pets")
                            }
                        }
                        set {
                            _$backingData.setValue(newValue, of: self, \.pets, at: 0, named: "pets")
                        }
                    }

                    private var _pets: Folio._PersistedPropertyMarker

                    \#(backingDataMembers(of: "Person"))

                    static var schemaMetadata: [Folio.Schema.PropertyMetadata] {
                        [
                            Folio.Schema.PropertyMetadata("pets", \Person.pets, inverse: \Cat.owner, inverseName: "owner")
                        ]
                    }

                    \#(backingDataInitializer(markers: ["pets"]))

                    init(pets: [Pets.Cat]) {
                        self.pets = pets
                    }

                    \#(unregisteringDeinit(of: "Person"))
                }

                extension Person: Folio.PersistentModel, Observation.Observable {
                }
                """#
        )
    }

    @Test("A @Transient property without an initial value is an error")
    func transientWithoutValue() {
        assertExpansion(
            """
            @Model
            final class Trip {
                var name: String
                @Transient var cache: [String: Int]
            }
            """,
            expandedSource: #"""
                final class Trip {
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
                    var cache: [String: Int]

                    \#(backingDataMembers(of: "Trip"))

                    static var schemaMetadata: [Folio.Schema.PropertyMetadata] {
                        [
                            Folio.Schema.PropertyMetadata("name", \Trip.name)
                        ]
                    }

                    \#(backingDataInitializer(markers: ["name"]))

                    init(name: String) {
                        self.name = name
                    }

                    \#(unregisteringDeinit(of: "Trip"))
                }

                extension Trip: Folio.PersistentModel, Observation.Observable {
                }
                """#,
            diagnostics: [
                DiagnosticSpec(
                    message: "a '@Transient' property needs an initial value, because models fetched from a document are created without one",
                    line: 4, column: 5)
            ]
        )
    }

    @Test("A persisted property with didSet or willSet is an error whose fix-it removes the observers")
    func propertyObservers() {
        assertExpansion(
            """
            @Model
            final class Trip {
                var name: String {
                    didSet { print(name) }
                }
            }
            """,
            expandedSource: """
                final class Trip {
                    var name: String {
                        didSet { print(name) }
                    }

                    \(backingDataMembers(of: "Trip"))

                    static var schemaMetadata: [Folio.Schema.PropertyMetadata] {
                        []
                    }

                    \(backingDataInitializer(markers: []))

                    init() {
                    }

                    \(unregisteringDeinit(of: "Trip"))
                }

                extension Trip: Folio.PersistentModel, Observation.Observable {
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message:
                        "a persisted model property cannot have 'willSet' or 'didSet' observers: undo, redo and other contexts change it without calling them; observe the model with Observation, or mark the property '@Transient'",
                    line: 3, column: 22, fixIts: [FixItSpec(message: "Remove the observers")])
            ],
            fixedSource: """
                @Model
                final class Trip {
                    var name: String
                }
                """
        )
    }

    @Test("An optional @Transient property needs no initial value: it starts as nil")
    func optionalTransient() {
        assertExpansion(
            """
            @Model
            final class Trip {
                @Transient var selection: Int?
            }
            """,
            expandedSource: """
                final class Trip {
                    var selection: Int?

                    \(backingDataMembers(of: "Trip"))

                    static var schemaMetadata: [Folio.Schema.PropertyMetadata] {
                        []
                    }

                    \(backingDataInitializer(markers: []))

                    init() {
                    }

                    \(unregisteringDeinit(of: "Trip"))
                }

                extension Trip: Folio.PersistentModel, Observation.Observable {
                }
                """
        )
    }

    @Test("`.unique` on a to-one relationship becomes an option of its metadata; on a to-many it is an error whose fix-it removes it, with its comma")
    func relationshipOption() {
        assertExpansion(
            """
            @Model
            final class Passport {
                @Relationship(.unique) var holder: Person?
                @Relationship(.unique, deleteRule: .cascade) var visas: [Visa]
            }
            """,
            expandedSource: #"""
                final class Passport {
                    var holder: Person? {
                        @storageRestrictions(accesses: _$backingData, initializes: _holder)
                        init(initialValue) {
                            Folio.BackingData._initialize(&_$backingData, initialValue, at: 0, named: "holder")
                            _holder = Folio._PersistedPropertyMarker()
                        }
                        get {
                            Folio.BackingData._reading(&_$backingData) {
                                $0.value(of: self, {
                                        \.holder
                                    }, at: 0, named: "holder")
                            }
                        }
                        set {
                            _$backingData.setValue(newValue, of: self, \.holder, at: 0, named: "holder")
                        }
                    }

                    private var _holder: Folio._PersistedPropertyMarker
                    var visas: [Visa] {
                        @storageRestrictions(accesses: _$backingData, initializes: _visas)
                        init(initialValue) {
                            Folio.BackingData._initialize(&_$backingData, initialValue, at: 1, named: "visas")
                            _visas = Folio._PersistedPropertyMarker()
                        }
                        get {
                            Folio.BackingData._reading(&_$backingData) {
                                $0.value(of: self, {
                                        \.visas
                                    }, at: 1, named: "visas")
                            }
                        }
                        set {
                            _$backingData.setValue(newValue, of: self, \.visas, at: 1, named: "visas")
                        }
                    }

                    private var _visas: Folio._PersistedPropertyMarker

                    \#(backingDataMembers(of: "Passport"))

                    static var schemaMetadata: [Folio.Schema.PropertyMetadata] {
                        [
                            Folio.Schema.PropertyMetadata("holder", \Passport.holder, options: [.unique]),
                            Folio.Schema.PropertyMetadata("visas", \Passport.visas, options: [.unique], deleteRule: .cascade)
                        ]
                    }

                    \#(backingDataInitializer(markers: ["holder", "visas"]))

                    init(holder: Person? = nil, visas: [Visa]) {
                        self.holder = holder
                        self.visas = visas
                    }

                    \#(unregisteringDeinit(of: "Passport"))
                }

                extension Passport: Folio.PersistentModel, Observation.Observable {
                }
                """#,
            diagnostics: [
                DiagnosticSpec(
                    message: "a to-many relationship cannot be unique: it holds many objects; make the to-one side unique ('@Relationship(.unique)' there)",
                    line: 4, column: 19, fixIts: [FixItSpec(message: "Remove '.unique'")])
            ],
            fixedSource: """
                @Model
                final class Passport {
                    @Relationship(.unique) var holder: Person?
                    @Relationship(deleteRule: .cascade) var visas: [Visa]
                }
                """
        )
    }

    @Test("Two properties declared on one line are an error whose fix-it declares each on its own line, with its type")
    func multipleBindings() {
        assertExpansion(
            """
            @Model
            final class Point {
                var x: Int, y: Int
                private var a, b: String
            }
            """,
            expandedSource: """
                final class Point {
                    var x: Int, y: Int
                    private var a, b: String

                    \(backingDataMembers(of: "Point"))

                    static var schemaMetadata: [Folio.Schema.PropertyMetadata] {
                        []
                    }

                    \(backingDataInitializer(markers: []))

                    init() {
                    }

                    \(unregisteringDeinit(of: "Point"))
                }

                extension Point: Folio.PersistentModel, Observation.Observable {
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "declare each model property on its own line ('var a: Int' and 'var b: Int')",
                    line: 3, column: 5, fixIts: [FixItSpec(message: "Declare each property on its own line")]),
                DiagnosticSpec(
                    message: "declare each model property on its own line ('var a: Int' and 'var b: Int')",
                    line: 4, column: 5, fixIts: [FixItSpec(message: "Declare each property on its own line")]),
            ],
            fixedSource: """
                @Model
                final class Point {
                    var x: Int
                    var y: Int
                    private var a: String
                    private var b: String
                }
                """
        )
    }

    @Test("@ModelActor on a class is an error whose fix-it makes it an actor")
    func modelActorOnClass() {
        assertExpansion(
            """
            @ModelActor
            final class Importer {
            }
            """,
            expandedSource: """
                final class Importer {
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "'@ModelActor' can only be applied to an actor", line: 1, column: 1,
                    fixIts: [FixItSpec(message: "Make it an actor")])
            ],
            fixedSource: """
                @ModelActor
                final actor Importer {
                }
                """
        )
    }

    @Test("@ModelActor on an enum is an error with no fix-it")
    func modelActorOnEnum() {
        assertExpansion(
            """
            @ModelActor
            enum Importer {
            }
            """,
            expandedSource: """
                enum Importer {
                }
                """,
            diagnostics: [
                DiagnosticSpec(message: "'@ModelActor' can only be applied to an actor", line: 1, column: 1)
            ]
        )
    }
}
