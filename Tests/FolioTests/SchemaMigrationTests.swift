import Foundation
import PropertyBased
import Testing
import Folio
@testable import FolioCore
import FolioTestSupport

/// The library, version 1: authors own books (cascade), books have tags (no inverse).
private func libraryV1(
    authorAttributes: [Schema.Attribute]? = nil,
    bookAttributes: [Schema.Attribute]? = nil,
    authorRelationships: [Schema.Relationship]? = nil,
    bookRelationships: [Schema.Relationship]? = nil,
    extraEntities: [Schema.Entity] = []
) throws -> Schema {
    try Schema(
        [
            .init(
                "Author",
                attributes: authorAttributes ?? [.init("name", .string), .init("born", .int, isOptional: true)],
                relationships: authorRelationships ?? [
                    .init(
                        "books", to: "Book", toMany: true, inverse: "author",
                        deleteRule: .cascade)
                ]),
            .init(
                "Book",
                attributes: bookAttributes ?? [
                    .init("title", .string), .init("pages", .int),
                    .init("rating", .double, isOptional: true),
                ],
                relationships: bookRelationships ?? [
                    .init("author", to: "Author", inverse: "books"),
                    .init("tags", to: "Tag", toMany: true),
                ]),
            .init("Tag", attributes: [.init("label", .string)]),
        ] + extraEntities)
}

/// Objects of the library, with a deleted book (a tombstone and a gap in the ids)
/// and lists whose order is not insertion order.
private struct Library {
    let graph: ObjectGraph
    let authors: [PersistentIdentifier]
    let books: [PersistentIdentifier]
    let tags: [PersistentIdentifier]

    init(schema: Schema? = nil) throws {
        let graph = ObjectGraph(schema: try schema ?? libraryV1())
        let tags = try ["fiction", "classic", "short"].map { try graph.insert("Tag", ["label": .string($0)]) }
        let authors = [
            try graph.insert("Author", ["name": .string("Le Guin"), "born": .int(1929)]),
            try graph.insert("Author", ["name": .string("Borges")]),
        ]
        var books: [PersistentIdentifier] = []
        for (index, title) in ["Earthsea", "Ficciones", "Doomed", "Aleph"].enumerated() {
            books.append(
                try graph.insert(
                    "Book",
                    [
                        "title": .string(title), "pages": .int(Int64(100 + index)),
                        "rating": index.isMultiple(of: 2) ? .double(4.5) : .null,
                    ]))
        }
        try graph.remove(books[2])
        books.remove(at: 2)
        try graph.setRelated([books[0]], for: "books", of: authors[0])
        try graph.setRelated([books[2], books[1]], for: "books", of: authors[1])
        try graph.setRelated([tags[2], tags[0]], for: "tags", of: books[0])
        try graph.setRelated([tags[1], tags[2], tags[0]], for: "tags", of: books[1])
        self.graph = graph
        self.authors = authors
        self.books = books
        self.tags = tags
    }
}

/// `graph` migrated to `target`, with the checks every successful migration must pass:
/// the source is unchanged, the result is sound and keeps `nextID`.
private func migrate(
    _ graph: ObjectGraph, to target: Schema,
    sourceLocation: SourceLocation = #_sourceLocation
) throws -> ObjectGraph {
    let before = graph.snapshot()
    let result = try graph.migrated(to: target)
    #expect(result.schema == target, sourceLocation: sourceLocation)
    #expect(result.invariantViolations().isEmpty, sourceLocation: sourceLocation)
    #expect(result.nextID == graph.nextID, sourceLocation: sourceLocation)
    #expect(graph.snapshot() == before, "the source graph changed", sourceLocation: sourceLocation)
    #expect(graph.invariantViolations().isEmpty, sourceLocation: sourceLocation)
    return result
}

/// Expects `graph.migrated(to: target)` to throw exactly `error` and leave `graph` as it was.
private func expectRefusal(
    _ graph: ObjectGraph, to target: Schema, _ error: MigrationError,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    let before = graph.snapshot()
    let nextID = graph.nextID
    #expect(throws: error, sourceLocation: sourceLocation) { try graph.migrated(to: target) }
    #expect(graph.snapshot() == before, "the source graph changed", sourceLocation: sourceLocation)
    #expect(graph.nextID == nextID, sourceLocation: sourceLocation)
    #expect(graph.invariantViolations().isEmpty, sourceLocation: sourceLocation)
    #expect(!error.description.isEmpty, sourceLocation: sourceLocation)
}

@Suite struct SchemaMigrationTests {
    // MARK: What migrates

    @Test("migrating to the same schema keeps every object, identifier, value, link order and nextID")
    func identity() throws {
        let library = try Library()
        let result = try migrate(library.graph, to: library.graph.schema)
        #expect(result.snapshot() == library.graph.snapshot())
        for entity in ["Author", "Book", "Tag"] {
            #expect(try result.identifiers(of: entity) == library.graph.identifiers(of: entity))
        }
        #expect(try result.related("books", of: library.authors[1]) == [library.books[2], library.books[1]])
        #expect(try result.related("tags", of: library.books[1]) == [library.tags[1], library.tags[2], library.tags[0]])
    }

    @Test("a new optional attribute is filled with nil, a new attribute with a default with the default")
    func newAttributes() throws {
        let library = try Library()
        let target = try libraryV1(bookAttributes: [
            .init("title", .string), .init("pages", .int), .init("rating", .double, isOptional: true),
            .init("subtitle", .string, isOptional: true),
            .init("language", .string, defaultValue: .string("en")),
            .init("copies", .int, isOptional: true, defaultValue: .int(1)),
            .init("extra", .any),
            .init("cache", .string, options: [.transient]),
        ])
        let result = try migrate(library.graph, to: target)
        for book in library.books {
            #expect(try result.value("subtitle", of: book) == .null)
            #expect(try result.value("language", of: book) == .string("en"))
            #expect(try result.value("copies", of: book) == .int(1))
            #expect(try result.value("extra", of: book) == .null)
            #expect(try result.value("cache", of: book) == .string(""))
            #expect(try result.value("title", of: book) == library.graph.value("title", of: book))
        }
    }

    @Test("a new non-optional attribute without a default is refused")
    func newRequiredAttributeRefused() throws {
        let library = try Library()
        let target = try libraryV1(bookAttributes: [
            .init("title", .string), .init("pages", .int), .init("rating", .double, isOptional: true),
            .init("isbn", .string),
        ])
        expectRefusal(library.graph, to: target, .newAttributeWithoutDefault(entity: "Book", attribute: "isbn", type: .string))
    }

    @Test("an attribute the new schema lacks is dropped and the others keep their values")
    func droppedAttribute() throws {
        let library = try Library()
        let target = try libraryV1(bookAttributes: [.init("title", .string), .init("rating", .double, isOptional: true)])
        let result = try migrate(library.graph, to: target)
        #expect(throws: GraphError.unknownAttribute(entity: "Book", attribute: "pages")) {
            try result.value("pages", of: library.books[0])
        }
        for book in library.books {
            #expect(try result.value("title", of: book) == library.graph.value("title", of: book))
            #expect(try result.value("rating", of: book) == library.graph.value("rating", of: book))
        }
    }

    @Test("an attribute renamed with originalName takes over the stored values")
    func renamedAttribute() throws {
        let library = try Library()
        let target = try libraryV1(bookAttributes: [
            .init("name", .string, originalName: "title"), .init("pageCount", .int, originalName: "pages"),
            .init("rating", .double, isOptional: true),
        ])
        let result = try migrate(library.graph, to: target)
        for book in library.books {
            #expect(try result.value("name", of: book) == library.graph.value("title", of: book))
            #expect(try result.value("pageCount", of: book) == library.graph.value("pages", of: book))
        }
    }

    @Test("originalName is ignored when the stored name is still in the new schema: names match first")
    func originalNameOfKeptName() throws {
        let library = try Library()
        let target = try libraryV1(bookAttributes: [
            .init("title", .string), .init("pages", .int),
            .init("rating", .double, isOptional: true), .init("headline", .string, isOptional: true, originalName: "title"),
        ])
        let result = try migrate(library.graph, to: target)
        #expect(try result.value("title", of: library.books[0]) == .string("Earthsea"))
        #expect(try result.value("headline", of: library.books[0]) == .null)
    }

    @Test("a relationship renamed with originalName keeps its links in order, on both sides")
    func renamedRelationship() throws {
        let library = try Library()
        let target = try libraryV1(
            authorRelationships: [
                .init(
                    "works", to: "Book", toMany: true, inverse: "writer", deleteRule: .cascade,
                    originalName: "books")
            ],
            bookRelationships: [
                .init("writer", to: "Author", inverse: "works", originalName: "author"),
                .init("labels", to: "Tag", toMany: true, originalName: "tags"),
            ])
        let result = try migrate(library.graph, to: target)
        #expect(try result.related("works", of: library.authors[1]) == [library.books[2], library.books[1]])
        #expect(try result.related("writer", of: library.books[1]) == [library.authors[1]])
        #expect(try result.related("labels", of: library.books[1]) == [library.tags[1], library.tags[2], library.tags[0]])
        #expect(try result.related("labels", of: library.books[2]).isEmpty)
    }

    @Test("an entity renamed with originalName keeps its objects, identifiers, values and links")
    func renamedEntity() throws {
        let library = try Library()
        let target = try Schema([
            .init(
                "Writer", attributes: [.init("name", .string), .init("born", .int, isOptional: true)],
                relationships: [.init("books", to: "Book", toMany: true, inverse: "author", deleteRule: .cascade)],
                originalName: "Author"),
            .init(
                "Book", attributes: [.init("title", .string), .init("pages", .int), .init("rating", .double, isOptional: true)],
                relationships: [.init("author", to: "Writer", inverse: "books"), .init("tags", to: "Tag", toMany: true)]),
            .init("Tag", attributes: [.init("label", .string)]),
        ])
        let result = try migrate(library.graph, to: target)
        let writers = library.authors.map { PersistentIdentifier(entityName: "Writer", id: $0.id) }
        #expect(try result.identifiers(of: "Writer") == writers)
        #expect(try result.value("name", of: writers[0]) == .string("Le Guin"))
        #expect(try result.value("born", of: writers[0]) == .int(1929))
        #expect(try result.related("books", of: writers[1]) == [library.books[2], library.books[1]])
        #expect(try result.related("author", of: library.books[0]) == [writers[0]])
        #expect(!result.contains(library.authors[0]))
    }

    @Test("a new entity is added empty and can be used")
    func newEntity() throws {
        let library = try Library()
        let shelf = Schema.Entity(
            "Shelf", attributes: [.init("label", .string)],
            relationships: [.init("books", to: "Book", toMany: true, minimumModelCount: 1)])
        let result = try migrate(library.graph, to: try libraryV1(extraEntities: [shelf]))
        #expect(try result.count(of: "Shelf") == 0)
        #expect(result.count == library.graph.count)
        let new = try result.insert("Shelf", ["label": .string("A")])
        #expect(new.id == library.graph.nextID)
        try result.link(new, "books", to: library.books[0])
        #expect(result.invariantViolations().isEmpty)
    }

    @Test("a new relationship with no minimum count is added empty on existing objects")
    func newRelationship() throws {
        let library = try Library()
        let target = try libraryV1(
            authorRelationships: [
                .init("books", to: "Book", toMany: true, inverse: "author", deleteRule: .cascade),
                .init("favourite", to: "Book", inverse: "fans", maximumModelCount: 1),
                .init("friends", to: "Author", toMany: true),
            ],
            bookRelationships: [
                .init("author", to: "Author", inverse: "books"), .init("tags", to: "Tag", toMany: true),
                .init("fans", to: "Author", toMany: true, inverse: "favourite"),
            ])
        let result = try migrate(library.graph, to: target)
        for author in library.authors {
            #expect(try result.related("favourite", of: author).isEmpty)
            #expect(try result.related("friends", of: author).isEmpty)
        }
        #expect(try result.related("books", of: library.authors[1]) == [library.books[2], library.books[1]])
        try result.link(library.authors[0], "favourite", to: library.books[1])
        #expect(try result.related("fans", of: library.books[1]) == [library.authors[0]])
        #expect(result.invariantViolations().isEmpty)
    }

    @Test("a new relationship with a minimum count is refused")
    func newRequiredRelationshipRefused() throws {
        let library = try Library()
        let target = try libraryV1(bookRelationships: [
            .init("author", to: "Author", inverse: "books"), .init("tags", to: "Tag", toMany: true),
            .init("editors", to: "Author", toMany: true, minimumModelCount: 1),
        ])
        expectRefusal(library.graph, to: target, .newRelationshipRequired(entity: "Book", relationship: "editors", minimum: 1))
    }

    @Test("delete rules, counts and options other than unique are metadata and may change")
    func metadataChanges() throws {
        let library = try Library()
        let target = try libraryV1(
            authorAttributes: [
                .init("name", .string, defaultValue: .string("?")),
                .init("born", .int, isOptional: true, options: [.transient]),
            ],
            authorRelationships: [
                .init(
                    "books", to: "Book", toMany: true, inverse: "author", deleteRule: .deny,
                    maximumModelCount: 5)
            ],
            bookRelationships: [
                .init("author", to: "Author", inverse: "books", deleteRule: .noAction),
                .init("tags", to: "Tag", toMany: true, deleteRule: .cascade, maximumModelCount: 3),
            ])
        let result = try migrate(library.graph, to: target)
        #expect(result.snapshot().objects["Book"] == library.graph.snapshot().objects["Book"])
        #expect(try result.value("born", of: library.authors[0]) == .int(1929))
        #expect(try result.related("books", of: library.authors[1]) == [library.books[2], library.books[1]])
    }

    @Test("a stricter count the stored links do not meet is refused, naming the object")
    func stricterCountRefused() throws {
        let library = try Library()
        let target = try libraryV1(bookRelationships: [
            .init("author", to: "Author", inverse: "books"), .init("tags", to: "Tag", toMany: true, maximumModelCount: 2),
        ])
        expectRefusal(
            library.graph, to: target,
            .countViolation(
                entity: "Book", relationship: "tags", id: library.books[1].id,
                count: 3, minimum: 0, maximum: 2))
        let required = try libraryV1(bookRelationships: [
            .init("author", to: "Author", inverse: "books", minimumModelCount: 1), .init("tags", to: "Tag", toMany: true),
        ])
        _ = try migrate(library.graph, to: required)  // every live book has an author
        try library.graph.unlink(library.books[0], "author", from: library.authors[0])
        expectRefusal(
            library.graph, to: required,
            .countViolation(
                entity: "Book", relationship: "author",
                id: library.books[0].id, count: 0, minimum: 1, maximum: 0))
    }

    @Test("adding unique is allowed when the stored values are distinct, nils aside")
    func addingUniqueAllowed() throws {
        let library = try Library()
        try library.graph.setValue(.null, for: "born", of: library.authors[0])
        let target = try libraryV1(authorAttributes: [
            .init("name", .string, options: [.unique]),
            .init("born", .int, isOptional: true, options: [.unique]),
        ])
        let result = try migrate(library.graph, to: target)
        #expect(
            result.firstObject(of: 0, inUniqueGroup: [0], holding: [.string("Borges")])
                == result.index[library.authors[1].id])
    }

    @Test("adding unique to an attribute whose stored values repeat is refused, naming both objects")
    func addingUniqueRefused() throws {
        let library = try Library()
        try library.graph.setValue(.string("Le Guin"), for: "name", of: library.authors[1])
        let target = try libraryV1(authorAttributes: [
            .init("name", .string, options: [.unique]),
            .init("born", .int, isOptional: true),
        ])
        expectRefusal(
            library.graph, to: target,
            .duplicateUniqueValue(
                entity: "Author", attribute: "name", value: Value.string("Le Guin").description,
                ids: library.authors.map(\.id)))
    }

    @Test("a new unique attribute whose one default would repeat across objects is refused")
    func newUniqueWithDefaultRefused() throws {
        let library = try Library()
        let target = try libraryV1(authorAttributes: [
            .init("name", .string), .init("born", .int, isOptional: true),
            .init("code", .string, defaultValue: .string("x"), options: [.unique]),
        ])
        expectRefusal(
            library.graph, to: target,
            .duplicateUniqueValue(
                entity: "Author", attribute: "code", value: Value.string("x").description,
                ids: library.authors.map(\.id)))
        let optional = try libraryV1(authorAttributes: [
            .init("name", .string), .init("born", .int, isOptional: true),
            .init("code", .string, isOptional: true, options: [.unique]),
        ])
        _ = try migrate(library.graph, to: optional)
    }

    @Test("entities and properties are matched by name, whatever their order")
    func orderMayChange() throws {
        let library = try Library()
        let target = try Schema([
            .init("Tag", attributes: [.init("label", .string)]),
            .init(
                "Book", attributes: [.init("rating", .double, isOptional: true), .init("pages", .int), .init("title", .string)],
                relationships: [.init("tags", to: "Tag", toMany: true), .init("author", to: "Author", inverse: "books")]),
            .init(
                "Author", attributes: [.init("born", .int, isOptional: true), .init("name", .string)],
                relationships: [.init("books", to: "Book", toMany: true, inverse: "author", deleteRule: .cascade)]),
        ])
        let result = try migrate(library.graph, to: target)
        #expect(result.snapshot() == library.graph.snapshot())
        for entity in ["Author", "Book", "Tag"] {
            #expect(try result.identifiers(of: entity) == library.graph.identifiers(of: entity))
        }
    }

    @Test("nextID is kept even when the object with the largest identifier was deleted")
    func nextIDKept() throws {
        let library = try Library()
        let last = try library.graph.insert("Tag", ["label": .string("gone")])
        try library.graph.remove(last)
        let result = try migrate(library.graph, to: library.graph.schema)
        #expect(result.nextID == last.id + 1)
        #expect(!result.contains(last))
        #expect(try result.insert("Tag").id == last.id + 1)
    }

    // MARK: What is refused

    @Test("an entity the new schema lacks is dropped with its objects and the relationships to it")
    func entityRemovedDropped() throws {
        let library = try Library()
        let withoutTags = try Schema([
            .init(
                "Author", attributes: [.init("name", .string), .init("born", .int, isOptional: true)],
                relationships: [.init("books", to: "Book", toMany: true, inverse: "author", deleteRule: .cascade)]),
            .init(
                "Book", attributes: [.init("title", .string), .init("pages", .int), .init("rating", .double, isOptional: true)],
                relationships: [.init("author", to: "Author", inverse: "books")]),
        ])
        let result = try migrate(library.graph, to: withoutTags)
        #expect(try result.count(of: "Book") == library.books.count)
        #expect(try result.count(of: "Author") == library.authors.count)
        #expect(!result.contains(library.tags[0]))
        #expect(try result.related("author", of: library.books[1]) == [library.authors[1]])
        let empty = ObjectGraph(schema: try libraryV1(extraEntities: [.init("Shelf")]))
        #expect(Set(try migrate(empty, to: try libraryV1()).schema.entities.map(\.name)) == ["Author", "Book", "Tag"])
        // A relationship to a kept entity is still refused when it goes.
        let withoutAuthorLink = try Schema([
            .init("Author", attributes: [.init("name", .string), .init("born", .int, isOptional: true)]),
            .init("Book", attributes: [.init("title", .string), .init("pages", .int), .init("rating", .double, isOptional: true)]),
        ])
        expectRefusal(library.graph, to: withoutAuthorLink, .relationshipRemoved(entity: "Author", relationship: "books"))
    }

    @Test("a changed attribute type is refused, naming both types")
    func typeChangeRefused() throws {
        let library = try Library()
        let target = try libraryV1(bookAttributes: [
            .init("title", .string), .init("pages", .int32),
            .init("rating", .double, isOptional: true),
        ])
        expectRefusal(library.graph, to: target, .attributeTypeChanged(entity: "Book", attribute: "pages", from: .int, to: .int32))
        let renamed = try libraryV1(bookAttributes: [
            .init("title", .string), .init("pages", .int),
            .init("score", .float, isOptional: true, originalName: "rating"),
        ])
        expectRefusal(
            library.graph, to: renamed,
            .attributeTypeChanged(entity: "Book", attribute: "score", from: .double, to: .float))
    }

    @Test("an optional attribute becoming non-optional is refused while an object holds nil, allowed once none does")
    func optionalToRequired() throws {
        let library = try Library()
        let target = try libraryV1(authorAttributes: [.init("name", .string), .init("born", .int)])
        expectRefusal(
            library.graph, to: target,
            .attributeNoLongerOptional(entity: "Author", attribute: "born", id: library.authors[1].id))
        try library.graph.setValue(.int(1899), for: "born", of: library.authors[1])
        let result = try migrate(library.graph, to: target)
        #expect(try result.value("born", of: library.authors[1]) == .int(1899))
        #expect(try result.value("born", of: library.authors[0]) == .int(1929))
    }

    @Test("a relationship the new schema lacks is refused, even when it is empty")
    func relationshipRemovedRefused() throws {
        let library = try Library()
        let target = try libraryV1(bookRelationships: [.init("author", to: "Author", inverse: "books")])
        expectRefusal(library.graph, to: target, .relationshipRemoved(entity: "Book", relationship: "tags"))
        let empty = ObjectGraph(schema: try libraryV1())
        expectRefusal(empty, to: target, .relationshipRemoved(entity: "Book", relationship: "tags"))
    }

    @Test("a relationship whose destination changed is refused")
    func destinationChangeRefused() throws {
        let library = try Library()
        let target = try libraryV1(bookRelationships: [
            .init("author", to: "Author", inverse: "books"),
            .init("tags", to: "Author", toMany: true),
        ])
        expectRefusal(
            library.graph, to: target,
            .relationshipDestinationChanged(entity: "Book", relationship: "tags", from: "Tag", to: "Author"))
    }

    @Test("a relationship changing between to-one and to-many is refused")
    func kindChangeRefused() throws {
        let library = try Library()
        let toOne = try libraryV1(bookRelationships: [
            .init("author", to: "Author", inverse: "books"),
            .init("tags", to: "Tag"),
        ])
        expectRefusal(library.graph, to: toOne, .relationshipKindChanged(entity: "Book", relationship: "tags", wasToMany: true))
        let toMany = try libraryV1(bookRelationships: [
            .init("author", to: "Author", toMany: true, inverse: "books"),
            .init("tags", to: "Tag", toMany: true),
        ])
        expectRefusal(
            library.graph, to: toMany,
            .relationshipKindChanged(entity: "Book", relationship: "author", wasToMany: false))
    }

    @Test("a changed inverse pairing is refused: removed, added, or paired with another relationship")
    func inverseChangeRefused() throws {
        let library = try Library()
        let unpaired = try libraryV1(
            authorRelationships: [.init("books", to: "Book", toMany: true)],
            bookRelationships: [.init("author", to: "Author"), .init("tags", to: "Tag", toMany: true)])
        expectRefusal(
            library.graph, to: unpaired,
            .inverseChanged(entity: "Author", relationship: "books", from: "author", to: nil))
        let tagged = try Schema([
            .init(
                "Author", attributes: [.init("name", .string), .init("born", .int, isOptional: true)],
                relationships: [.init("books", to: "Book", toMany: true, inverse: "author", deleteRule: .cascade)]),
            .init(
                "Book", attributes: [.init("title", .string), .init("pages", .int), .init("rating", .double, isOptional: true)],
                relationships: [
                    .init("author", to: "Author", inverse: "books"),
                    .init("tags", to: "Tag", toMany: true, inverse: "books"),
                ]),
            .init(
                "Tag", attributes: [.init("label", .string)],
                relationships: [.init("books", to: "Book", toMany: true, inverse: "tags")]),
        ])
        expectRefusal(library.graph, to: tagged, .inverseChanged(entity: "Book", relationship: "tags", from: nil, to: "books"))
        let swapped = try libraryV1(
            authorRelationships: [
                .init("books", to: "Book", toMany: true, inverse: "author", deleteRule: .cascade),
                .init("drafts", to: "Book", toMany: true, inverse: "drafter"),
            ],
            bookRelationships: [
                .init("author", to: "Author", inverse: "books"), .init("tags", to: "Tag", toMany: true),
                .init("drafter", to: "Author", inverse: "drafts"),
            ])
        _ = try migrate(library.graph, to: swapped)
        let paired = try libraryV1(
            authorRelationships: [
                .init("books", to: "Book", toMany: true, inverse: "drafter", deleteRule: .cascade),
                .init("drafts", to: "Book", toMany: true, inverse: "author"),
            ],
            bookRelationships: [
                .init("author", to: "Author", inverse: "drafts"), .init("tags", to: "Tag", toMany: true),
                .init("drafter", to: "Author", inverse: "books"),
            ])
        expectRefusal(
            library.graph, to: paired,
            .inverseChanged(entity: "Author", relationship: "books", from: "author", to: "drafter"))
    }

    @Test("two entities or properties renaming the same stored name are refused")
    func ambiguousRenameRefused() throws {
        let library = try Library()
        let target = try libraryV1(bookAttributes: [
            .init("name", .string, originalName: "title"), .init("heading", .string, originalName: "title"),
            .init("pages", .int), .init("rating", .double, isOptional: true),
        ])
        expectRefusal(library.graph, to: target, .ambiguousRename(originalName: "title", claimedBy: ["Book.name", "Book.heading"]))
    }

    // MARK: Through a package

    @Test("a package read back migrates with the same ids, values and order; a refused migration changes no file")
    func packageRoundTrip() throws {
        let library = try Library()
        let package = DocumentPackage(url: temporaryPackageURL("Library"))
        defer { try? FileManager.default.removeItem(at: package.url.deletingLastPathComponent()) }
        try package.write(library.graph)
        let bytes = try packageDocument(package.url)
        let stored = try package.read()
        #expect(stored.snapshot() == library.graph.snapshot())

        let v2 = try Schema([
            .init("Tag", attributes: [.init("label", .string, options: [.unique])]),
            .init(
                "Book",
                attributes: [
                    .init("pages", .int), .init("name", .string, originalName: "title"),
                    .init("isbn", .string, isOptional: true),
                    .init("language", .string, defaultValue: .string("en")),
                ],
                relationships: [
                    .init("labels", to: "Tag", toMany: true, originalName: "tags"),
                    .init("writer", to: "Writer", inverse: "books", originalName: "author"),
                ]),
            .init(
                "Writer", attributes: [.init("name", .string), .init("born", .int, isOptional: true)],
                relationships: [.init("books", to: "Book", toMany: true, inverse: "writer", deleteRule: .cascade)],
                originalName: "Author"),
            .init("Shelf", attributes: [.init("label", .string)]),
        ])
        let migrated = try migrate(stored, to: v2)
        #expect(try migrated.identifiers(of: "Book") == stored.identifiers(of: "Book"))
        #expect(try migrated.identifiers(of: "Tag") == stored.identifiers(of: "Tag"))
        #expect(try migrated.identifiers(of: "Writer").map(\.id) == stored.identifiers(of: "Author").map(\.id))
        for book in try stored.identifiers(of: "Book") {
            #expect(try migrated.value("name", of: book) == stored.value("title", of: book))
            #expect(try migrated.value("pages", of: book) == stored.value("pages", of: book))
            #expect(try migrated.value("isbn", of: book) == .null)
            #expect(try migrated.value("language", of: book) == .string("en"))
            #expect(try migrated.related("labels", of: book) == stored.related("tags", of: book))
            #expect(try migrated.related("writer", of: book).map(\.id) == stored.related("author", of: book).map(\.id))
        }
        let borges = PersistentIdentifier(entityName: "Writer", id: library.authors[1].id)
        #expect(try migrated.related("books", of: borges) == [library.books[2], library.books[1]])

        // The migrated graph saves and reopens as itself.
        let migratedPackage = DocumentPackage(url: package.url.deletingLastPathComponent().appendingPathComponent("V2.folio"))
        try migratedPackage.write(migrated)
        let reopened = try migratedPackage.read()
        #expect(reopened.schema == v2)
        #expect(reopened.snapshot() == migrated.snapshot())
        #expect(reopened.invariantViolations().isEmpty)

        // A refused migration leaves the graph and the package as they were.
        let before = stored.snapshot()
        let bad = try libraryV1(bookAttributes: [
            .init("title", .int), .init("pages", .int),
            .init("rating", .double, isOptional: true),
        ])
        #expect(throws: MigrationError.attributeTypeChanged(entity: "Book", attribute: "title", from: .string, to: .int)) {
            try stored.migrated(to: bad)
        }
        #expect(stored.snapshot() == before)
        #expect(stored.schema == library.graph.schema)
        #expect(try packageDocument(package.url) == bytes)
        #expect(try package.read().snapshot() == before)
    }

    // MARK: Property

    @Test("a random graph migrated to its own schema, entities and properties shuffled, is equal object for object")
    func shuffledSchemaProperty() async throws {
        // The schema and its reordering come from a seed; the graph from one seed per
        // object and edit, so a failure shrinks to the fewest objects and edits.
        await checkProperty(count: 200, input: Gen.uint64(in: 0...UInt64.max), RandomGraphs.GraphPlan.generator) { seed, plan in
            var rng = SeededGenerator(seed: seed)
            let schema = RandomGraphs.schema(&rng)
            let graph = try RandomGraphs.graph(schema, plan)
            var entities = schema.entities.shuffled(using: &rng)
            for index in entities.indices {
                entities[index].attributes.shuffle(using: &rng)
                entities[index].relationships.shuffle(using: &rng)
            }
            let shuffled = try Schema(entities)
            let before = graph.snapshot()
            let result = try graph.migrated(to: shuffled)
            #expect(result.snapshot() == before, "schema seed \(seed)")
            #expect(graph.snapshot() == before, "schema seed \(seed)")
            #expect(result.invariantViolations().isEmpty, "schema seed \(seed)")
            #expect(result.nextID == graph.nextID, "schema seed \(seed)")
            for entity in schema.entities {
                #expect(try result.identifiers(of: entity.name) == graph.identifiers(of: entity.name), "schema seed \(seed)")
            }
        }
    }

    // MARK: Entities in another order

    private static func storage(_ column: Column) -> ObjectIdentifier {
        switch column {
        case .int(let storage): ObjectIdentifier(storage)
        case .double(let storage): ObjectIdentifier(storage)
        case .string(let storage): ObjectIdentifier(storage)
        case .bool(let storage): ObjectIdentifier(storage)
        case .value(let storage): ObjectIdentifier(storage)
        }
    }

    @Test("a random graph brought to its own schema with the entities reordered is equal and copies no column")
    func reorderedEntitiesProperty() async throws {
        // The schema and its reordering come from a seed; the graph from one seed per
        // object and edit, so a failure shrinks to the fewest objects and edits.
        await checkProperty(count: 200, input: Gen.uint64(in: 0...UInt64.max), RandomGraphs.GraphPlan.generator) { seed, plan in
            var rng = SeededGenerator(seed: seed)
            let schema = RandomGraphs.schema(&rng)
            let graph = try RandomGraphs.graph(schema, plan)
            let reordered = try Schema(schema.entities.shuffled(using: &rng))
            let before = graph.snapshot()
            let identifiers = try schema.entities.map { try graph.identifiers(of: $0.name) }
            let storages = graph.tables.map { $0.columns.map(Self.storage) }
            let nextID = graph.nextID
            let result = try graph.brought(to: reordered)
            #expect(result.schema == reordered, "schema seed \(seed)")
            #expect(result.snapshot() == before, "schema seed \(seed)")
            #expect(result.invariantViolations().isEmpty, "schema seed \(seed)")
            #expect(result.nextID == nextID, "schema seed \(seed)")
            for (old, entity) in schema.entities.enumerated() {
                let new = try #require(result.layout.entityIndex[entity.name])
                #expect(try result.identifiers(of: entity.name) == identifiers[old], "schema seed \(seed)")
                #expect(result.tables[new].columns.map(Self.storage) == storages[old], "schema seed \(seed): \(entity.name) was copied")
            }
        }
    }

    @Test("a package opened with its entities in another order keeps its parts: a save after one edit rewrites one part", .format2)
    func reorderedPackageKeepsItsParts() throws {
        let url = temporaryPackageURL()
        let folder = url.deletingLastPathComponent().path
        DocumentWriter.usePartSizes((600, 1_200), under: folder)
        defer {
            DocumentWriter.usePartSizes(nil, under: folder)
            try? FileManager.default.removeItem(atPath: folder)
        }
        let schema = try zooSchema()
        let graph = ObjectGraph(schema: schema)
        let category = try graph.insert("AnimalCategory", ["name": .string("Birds")])
        var animals: [PersistentIdentifier] = []
        for index in 0..<200 {
            let animal = try graph.insert("Animal", ["name": .string("Bird \(index)"), "age": .int(Int64(index))])
            try graph.link(animal, "category", to: category)
            animals.append(animal)
        }
        let package = DocumentPackage(url: url)
        try package.write(graph)
        let partsBefore = Set(FileIO.entries(of: package.partsPath))
        #expect(partsBefore.count > 4)
        let reordered = try Schema(schema.entities.reversed())
        let container = try ModelContainer(for: reordered, configurations: ModelConfiguration(url: url))
        let context = ModelContext(container)
        #expect(context.graph.schema == reordered)
        try context.setValue(.int(1_000), for: "age", of: animals[100])
        try context.save()
        let partsAfter = Set(FileIO.entries(of: package.partsPath))
        #expect(partsAfter.subtracting(partsBefore).count == 1)
        #expect(partsBefore.subtracting(partsAfter).count == 1)
        let back = try package.read()
        #expect(back.schema == reordered)
        #expect(try back.value("age", of: animals[100]) == .int(1_000))
        #expect(try back.count(of: "Animal") == 200)
    }
}
