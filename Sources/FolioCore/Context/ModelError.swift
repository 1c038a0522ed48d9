/// Why an operation of a container or context failed.
///
/// Wraps the lower layers' errors so a caller can catch one type, and adds the
/// context's own: validation failures at save, saves that are not allowed.
public enum ModelError: Error, Hashable, Sendable, CustomStringConvertible {
    /// An edit was refused by the object graph (unknown name, wrong type, unknown object).
    case graph(GraphError)
    /// Reading or writing the package failed.
    case package(PackageError)
    /// `save()` found rule violations; nothing was written.
    case validation([ValidationIssue])
    /// The container's configuration does not allow saving.
    case saveNotAllowed
    /// Models given to a call that cannot throw (SwiftData's `insert(_:)`, or a
    /// relationship holding an unmanaged model) were refused since the last
    /// save and are not in the context (a value the document cannot hold, or a
    /// model of another context whose object this one lacks, say):
    /// each refusal, in order (the first 100). Each was reported to the
    /// context's `autosaveErrorHandler` when it happened; `save()` throws them
    /// once and writes nothing, so a save never succeeds as if the refused
    /// models had been stored. (A refused property edit keeps its model and
    /// old value, and is reported only.)
    case refusedInserts([ModelError])
    /// A runtime predicate could not be parsed or applied.
    case predicate(ObjectPredicateError)
    /// A fetch was asked to sort by an attribute whose values have no order:
    /// an array, a set, a dictionary or a `codable` composite
    /// (``ValueType/isSortable``). `entity` declares the attribute (for a key
    /// path through a to-one, the related entity). Nothing was fetched.
    case unsortable(entity: String, attribute: String)
    /// The schema is invalid (say, model classes whose inverses disagree).
    case schema(SchemaError)
    /// The package's stored schema differs from the container's in a way
    /// lightweight migration cannot bridge; the package was left untouched.
    case migration(package: String, MigrationError)
    /// The container cannot honour its configurations: Folio keeps a container
    /// in one package, so it takes one configuration, whose `schema` (if any)
    /// names only entities of the container's schema.
    case configuration(String)
    /// The context's ``ModelContext/cancellationCheck`` asked a long fetch,
    /// count, deletion preview or delete to stop; nothing was changed.
    case cancelled
    /// ``ModelContext/resolve(_:keeping:)`` was given a conflict the document
    /// does not record (resolved already, or from another document).
    case conflictNotRecorded(MergeConflict)

    public var description: String {
        switch self {
        case .graph(let error): return error.description
        case .package(let error): return error.description
        case .validation(let issues): return "save refused: " + issues.map(\.description).joined(separator: "; ")
        case .saveNotAllowed: return "this container's configuration does not allow saving"
        case .refusedInserts(let errors):
            return "save refused: \(errors.count == 1 ? "a model was" : "\(errors.count) models were") refused at insert and "
                + "not stored (nothing was written; save again to write the rest): "
                + errors.map(\.description).joined(separator: "; ")
        case .predicate(let error): return error.description
        case .unsortable(let entity, let attribute):
            return "cannot sort by \(entity).\(attribute): arrays, sets, dictionaries and composite values have no order"
        case .schema(let error): return "invalid schema: \(error)"
        case .migration(let path, let error): return "\(path) cannot be opened with these models: \(error)"
        case .configuration(let reason): return "unsupported configuration: \(reason)"
        case .cancelled: return "cancelled"
        case .conflictNotRecorded(let conflict): return "no such conflict recorded in this document: \(conflict)"
        }
    }
}

extension ModelError {
    /// The query engine's error as the context reports it.
    init(_ error: FetchError) {
        switch error {
        case .unknownEntity(let error): self = .graph(error)
        case .predicate(let error): self = .predicate(error)
        case .unsortable(let entity, let attribute): self = .unsortable(entity: entity, attribute: attribute)
        case .unreadable(let error): self = .graph(error)
        case .cancelled: self = .cancelled
        }
    }
}
