/// What a container shares with its contexts: its schema and configuration,
/// the checks its model classes add, and the package's shared document. A context holds
/// it strongly, so the main context keeps working after its container is gone.
final class ContainerCore: @unchecked Sendable {
    let schema: Schema
    let configurations: [ModelConfiguration]
    /// What a value of a model class's `Codable` property must also pass (see `Schema.modelValueChecks`).
    let modelValueChecks: ModelValueChecks
    let sharedDocument: SharedDocument
    /// The store's identifier, as identifiers and history transactions carry
    /// it: the package's path (`/dev/null` in memory only).
    let storeIdentifier: String

    init(
        schema: Schema, configurations: [ModelConfiguration], modelValueChecks: ModelValueChecks,
        sharedDocument: SharedDocument
    ) {
        self.schema = schema
        self.configurations = configurations
        self.modelValueChecks = modelValueChecks
        self.sharedDocument = sharedDocument
        storeIdentifier = (configurations.first ?? ModelConfiguration(isStoredInMemoryOnly: true)).url.path
    }

    var configuration: ModelConfiguration { configurations.first ?? ModelConfiguration(isStoredInMemoryOnly: true) }
}
