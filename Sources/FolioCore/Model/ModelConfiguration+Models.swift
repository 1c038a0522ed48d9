/// Configurations for model classes.
extension ModelConfiguration {
    /// Creates a configuration storing these model classes (and the classes
    /// they relate to), as SwiftData's `ModelConfiguration(for: Trip.self)`.
    ///
    /// The container it is given to must include the classes; see ``schema``.
    /// (The first class is a separate parameter so that `ModelConfiguration()`
    /// stays unambiguous; call sites read as SwiftData's.)
    public init(for forType: any PersistentModel.Type, _ moreTypes: any PersistentModel.Type..., isStoredInMemoryOnly: Bool = false) {
        self.init(schema: Schema([forType] + moreTypes), isStoredInMemoryOnly: isStoredInMemoryOnly)
    }
}
