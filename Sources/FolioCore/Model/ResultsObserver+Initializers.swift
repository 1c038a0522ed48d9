/// SwiftData's initializers of `ResultsObserver`: with a fetch descriptor or a
/// predicate and sort descriptors; over a context, or over a container
/// through a new context of its own; unsectioned (`SectionTitle == Never`)
/// or sectioned by a `String` or optional `String` key path.
///
/// Each fetches the results before it returns and throws what that fetch
/// throws (``ModelContext/fetch(_:)``). `isolation` is the actor the observer
/// is used on, the caller's by default: the observer takes in other contexts'
/// saves there (see "Threading" in ``ResultsObserver``).
extension ResultsObserver where SectionTitle == Never {
    /// Creates an unsectioned observer of the models `fetchDescriptor` selects in `modelContext`.
    ///
    /// - Throws: what the first fetch throws.
    public convenience init(
        fetchDescriptor: FetchDescriptor<Element> = FetchDescriptor<Element>(),
        modelContext: ModelContext, isolation: isolated (any Actor)? = #isolation
    ) throws {
        try self.init(descriptor: fetchDescriptor, section: nil, context: modelContext, isolation: isolation)
    }

    /// Creates an unsectioned observer of the models `fetchDescriptor` selects,
    /// over a new context of `modelContainer`.
    ///
    /// The new context sees what the container's other contexts save (the main
    /// context's edits once it saves or autosaves), as SwiftData's does.
    /// - Throws: what the first fetch throws.
    public convenience init(
        fetchDescriptor: FetchDescriptor<Element> = FetchDescriptor<Element>(),
        modelContainer: ModelContainer, isolation: isolated (any Actor)? = #isolation
    ) throws {
        try self.init(descriptor: fetchDescriptor, section: nil, context: ModelContext(modelContainer), isolation: isolation)
    }

    /// Creates an unsectioned observer of the models matching `filterBy`, in the order of `sortBy`.
    ///
    /// - Throws: what the first fetch throws.
    public convenience init(
        filterBy: Predicate<Element>? = nil, sortBy: [SortDescriptor<Element>]? = nil,
        modelContext: ModelContext, isolation: isolated (any Actor)? = #isolation
    ) throws {
        try self.init(
            descriptor: FetchDescriptor(predicate: filterBy, sortBy: sortBy ?? []), section: nil,
            context: modelContext, isolation: isolation)
    }

    /// Creates an unsectioned observer of the models matching `filterBy`, in
    /// the order of `sortBy`, over a new context of `modelContainer`.
    ///
    /// - Throws: what the first fetch throws.
    public convenience init(
        filterBy: Predicate<Element>? = nil, sortBy: [SortDescriptor<Element>]? = nil,
        modelContainer: ModelContainer, isolation: isolated (any Actor)? = #isolation
    ) throws {
        try self.init(
            descriptor: FetchDescriptor(predicate: filterBy, sortBy: sortBy ?? []), section: nil,
            context: ModelContext(modelContainer), isolation: isolation)
    }
}

extension ResultsObserver where SectionTitle == String {
    /// Creates an observer of the models `fetchDescriptor` selects, in sections by a `String` property.
    ///
    /// The section key is sorted first (``sections`` are contiguous).
    /// - Throws: what the first fetch throws.
    public convenience init(
        fetchDescriptor: FetchDescriptor<Element> = FetchDescriptor<Element>(),
        sectionBy: KeyPath<Element, String>, modelContext: ModelContext,
        isolation: isolated (any Actor)? = #isolation
    ) throws {
        try self.init(descriptor: fetchDescriptor, section: SectionKey(sectionBy), context: modelContext, isolation: isolation)
    }

    /// Creates an observer of the models `fetchDescriptor` selects, in sections
    /// by an optional `String` property (`nil` in the section titled `""`).
    ///
    /// - Throws: what the first fetch throws.
    public convenience init(
        fetchDescriptor: FetchDescriptor<Element> = FetchDescriptor<Element>(),
        sectionBy: KeyPath<Element, String?>, modelContext: ModelContext,
        isolation: isolated (any Actor)? = #isolation
    ) throws {
        try self.init(descriptor: fetchDescriptor, section: SectionKey(sectionBy), context: modelContext, isolation: isolation)
    }

    /// Creates an observer of the models `fetchDescriptor` selects, in sections
    /// by a `String` property, over a new context of `modelContainer`.
    ///
    /// - Throws: what the first fetch throws.
    public convenience init(
        fetchDescriptor: FetchDescriptor<Element> = FetchDescriptor<Element>(),
        sectionBy: KeyPath<Element, String>, modelContainer: ModelContainer,
        isolation: isolated (any Actor)? = #isolation
    ) throws {
        try self.init(
            descriptor: fetchDescriptor, section: SectionKey(sectionBy), context: ModelContext(modelContainer),
            isolation: isolation)
    }

    /// Creates an observer of the models `fetchDescriptor` selects, in sections
    /// by an optional `String` property, over a new context of `modelContainer`.
    ///
    /// - Throws: what the first fetch throws.
    public convenience init(
        fetchDescriptor: FetchDescriptor<Element> = FetchDescriptor<Element>(),
        sectionBy: KeyPath<Element, String?>, modelContainer: ModelContainer,
        isolation: isolated (any Actor)? = #isolation
    ) throws {
        try self.init(
            descriptor: fetchDescriptor, section: SectionKey(sectionBy), context: ModelContext(modelContainer),
            isolation: isolation)
    }

    /// Creates an observer of the models matching `filterBy`, sorted by the
    /// section key and then `sortBy`, in sections by a `String` property.
    ///
    /// - Throws: what the first fetch throws.
    public convenience init(
        filterBy: Predicate<Element>? = nil, sortBy: [SortDescriptor<Element>]? = nil,
        sectionBy: KeyPath<Element, String>, modelContext: ModelContext,
        isolation: isolated (any Actor)? = #isolation
    ) throws {
        try self.init(
            descriptor: FetchDescriptor(predicate: filterBy, sortBy: sortBy ?? []), section: SectionKey(sectionBy),
            context: modelContext, isolation: isolation)
    }

    /// Creates an observer of the models matching `filterBy`, sorted by the
    /// section key and then `sortBy`, in sections by an optional `String`
    /// property (`nil` in the section titled `""`).
    ///
    /// - Throws: what the first fetch throws.
    public convenience init(
        filterBy: Predicate<Element>? = nil, sortBy: [SortDescriptor<Element>]? = nil,
        sectionBy: KeyPath<Element, String?>, modelContext: ModelContext,
        isolation: isolated (any Actor)? = #isolation
    ) throws {
        try self.init(
            descriptor: FetchDescriptor(predicate: filterBy, sortBy: sortBy ?? []), section: SectionKey(sectionBy),
            context: modelContext, isolation: isolation)
    }

    /// Creates an observer of the models matching `filterBy`, in sections by
    /// a `String` property, over a new context of `modelContainer`.
    ///
    /// - Throws: what the first fetch throws.
    public convenience init(
        filterBy: Predicate<Element>? = nil, sortBy: [SortDescriptor<Element>]? = nil,
        sectionBy: KeyPath<Element, String>, modelContainer: ModelContainer,
        isolation: isolated (any Actor)? = #isolation
    ) throws {
        try self.init(
            descriptor: FetchDescriptor(predicate: filterBy, sortBy: sortBy ?? []), section: SectionKey(sectionBy),
            context: ModelContext(modelContainer), isolation: isolation)
    }

    /// Creates an observer of the models matching `filterBy`, in sections by
    /// an optional `String` property, over a new context of `modelContainer`.
    ///
    /// - Throws: what the first fetch throws.
    public convenience init(
        filterBy: Predicate<Element>? = nil, sortBy: [SortDescriptor<Element>]? = nil,
        sectionBy: KeyPath<Element, String?>, modelContainer: ModelContainer,
        isolation: isolated (any Actor)? = #isolation
    ) throws {
        try self.init(
            descriptor: FetchDescriptor(predicate: filterBy, sortBy: sortBy ?? []), section: SectionKey(sectionBy),
            context: ModelContext(modelContainer), isolation: isolation)
    }
}
