/// Why the query engine could not fetch: the context layer above reports each
/// case as its ``ModelError`` (`ModelError.init(_:)`), so
/// callers of the public API catch what they always did.
enum FetchError: Error, Hashable {
    /// The descriptor names an entity the document does not have.
    case unknownEntity(GraphError)
    /// The predicate does not parse or apply to the entity, or a sort key
    /// names no attribute or path.
    case predicate(ObjectPredicateError)
    /// A sort key whose values have no order (an array, set, dictionary or
    /// `codable` attribute).
    case unsortable(entity: String, attribute: String)
    /// A predicate or sort key needed an externally stored value whose file
    /// cannot be read (missing, or its bytes do not match their hash): the
    /// fetch fails rather than answer as if the value were empty.
    case unreadable(GraphError)
    /// The caller's cancellation check asked the fetch to stop (``CancellationPoll``).
    case cancelled
}
