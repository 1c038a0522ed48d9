import Testing

/// What `@ModelActor` gives an actor: a container, an executor holding a
/// context of its own, an initializer, and the `ModelActor` conformance.
@Suite struct ModelActorMacroTests {
    @Test("An actor gets its container, an executor with its own context, and init(modelContainer:)")
    func actorMembers() {
        assertExpansion(
            """
            @ModelActor
            actor TodoActor {
                func deleteAll() throws {}
            }
            """,
            expandedSource: """
                actor TodoActor {
                    func deleteAll() throws {}

                    nonisolated let modelExecutor: any Folio.ModelExecutor

                    nonisolated let modelContainer: Folio.ModelContainer

                    init(modelContainer: Folio.ModelContainer) {
                        let modelContext = Folio.ModelContext(modelContainer)
                        self.modelExecutor = Folio.DefaultSerialModelExecutor(modelContext: modelContext)
                        self.modelContainer = modelContainer
                    }
                }

                extension TodoActor: Folio.ModelActor {
                }
                """
        )
    }

    @Test("A public actor's generated members are public")
    func publicActor() {
        assertExpansion(
            """
            @ModelActor
            public actor Importer {
            }
            """,
            expandedSource: """
                public actor Importer {

                    public nonisolated let modelExecutor: any Folio.ModelExecutor

                    public nonisolated let modelContainer: Folio.ModelContainer

                    public init(modelContainer: Folio.ModelContainer) {
                        let modelContext = Folio.ModelContext(modelContainer)
                        self.modelExecutor = Folio.DefaultSerialModelExecutor(modelContext: modelContext)
                        self.modelContainer = modelContainer
                    }
                }

                extension Importer: Folio.ModelActor {
                }
                """
        )
    }

    @Test("A package actor's generated members are package")
    func packageActor() {
        assertExpansion(
            """
            @ModelActor
            package actor Importer {
            }
            """,
            expandedSource: """
                package actor Importer {

                    package nonisolated let modelExecutor: any Folio.ModelExecutor

                    package nonisolated let modelContainer: Folio.ModelContainer

                    package init(modelContainer: Folio.ModelContainer) {
                        let modelContext = Folio.ModelContext(modelContainer)
                        self.modelExecutor = Folio.DefaultSerialModelExecutor(modelContext: modelContext)
                        self.modelContainer = modelContainer
                    }
                }

                extension Importer: Folio.ModelActor {
                }
                """
        )
    }
}
