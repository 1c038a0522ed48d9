import Dispatch
import Folio
import Foundation
import Observation
import Testing
import XCTest

// Issue 14, item 6: no public name of Folio clashes with the modules a
// SwiftData app's tests import beside it. Every name below is written
// unqualified; if Folio declared one of the toolchain's names again (or the
// toolchain one of Folio's), this file would stop compiling with
// "'X' is ambiguous for type lookup in this context".

/// Testing's `SourceLocation`, forwarded as a helper of an app's tests does.
@MainActor
func expectTripCount(_ expected: Int, in context: ModelContext, sourceLocation: SourceLocation = #_sourceLocation) throws {
    #expect(try context.fetchCount(FetchDescriptor<Trip>()) == expected, sourceLocation: sourceLocation)
}

/// Every top-level public type of Folio, in type position.
struct FolioPublicTypes {
    var packageError: PackageError?
    var location: PackageError.Location?
    var documentPackage: DocumentPackage?
    var persistentIdentifier: PersistentIdentifier?
    var objectGraph: ObjectGraph?
    var migrationError: MigrationError?
    var graphError: GraphError?
    var backingData: BackingData?
    var modelExecutor: (any ModelExecutor)?
    var defaultSerialModelExecutor: DefaultSerialModelExecutor?
    var modelActor: (any ModelActor)?
    var fetchDescriptor: FetchDescriptor<Trip>?
    var persistableValue: (any PersistableValue)?
    var persistentModel: (any PersistentModel)?
    var dynamicFetchDescriptor: DynamicFetchDescriptor?
    var objectPredicateError: ObjectPredicateError?
    var objectPredicate: ObjectPredicate?
    var modelError: ModelError?
    var validationIssue: ValidationIssue?
    var modelConfiguration: ModelConfiguration?
    var modelContext: ModelContext?
    var modelContainer: ModelContainer?
    var deletionPreview: DeletionPreview?
    var value: Value?
    var schemaError: SchemaError?
    var schema: Schema?
    var documentLimits: DocumentLimits?
    var valueType: ValueType?
    var undoManager: UndoManager?
}

/// The toolchain's names, unqualified beside Folio's.
struct ToolchainTypes {
    var sourceLocation: SourceLocation?
    var predicateError: PredicateError?
    var predicate: Predicate<Trip>?
    var sortDescriptor: SortDescriptor<Trip>?
    var registrar: ObservationRegistrar?
    var observable: (any Observable)?
    var queue: DispatchQueue?
    var testCase: XCTestCase?
    var issue: Issue?
}

@Suite @MainActor struct NameClashTests {
    @Test func folioAndTheToolchainNamesAllResolve() throws {
        let container = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = container.mainContext
        let trip = Trip(name: "Rome", destination: "Italy", startDate: .day(1), endDate: .day(4))
        context.insert(trip)
        try context.save()
        try expectTripCount(1, in: context)

        var names = FolioPublicTypes()
        names.modelContainer = container
        names.modelContext = context
        names.undoManager = context.undoManager
        names.persistentIdentifier = trip.persistentModelID
        names.schema = container.schema
        names.fetchDescriptor = FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)])
        names.modelConfiguration = container.configurations.first
        names.documentLimits = .standard
        names.persistentModel = trip
        #expect(names.modelConfiguration?.isStoredInMemoryOnly == true)

        var toolchain = ToolchainTypes()
        toolchain.predicate = #Predicate<Trip> { $0.destination == "Italy" }
        toolchain.sortDescriptor = SortDescriptor(\Trip.startDate, order: .reverse)
        toolchain.queue = DispatchQueue.main
        #expect(try toolchain.predicate?.evaluate(trip) == true)
    }

    @Test func foundationsPredicateErrorIsThrownByAPredicate() {
        let trip = Trip(name: "Rome", destination: "Italy", startDate: .day(1), endDate: .day(4))
        let predicate = #Predicate<Trip> { $0.notes! == "Bring sunscreen" }
        #expect(throws: PredicateError.self) {
            try predicate.evaluate(trip)
        }
    }

    @Test func modelsAreObservable() {
        let trip = Trip(name: "Rome", destination: "Italy", startDate: .day(1), endDate: .day(4))
        let observed = Flag()
        withObservationTracking {
            _ = trip.destination
        } onChange: {
            observed.set()
        }
        trip.destination = "Lazio"
        #expect(observed.isSet)
    }
}

/// A flag an observation's `onChange` can set from any thread.
final class Flag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false

    func set() { lock.withLock { value = true } }
    var isSet: Bool { lock.withLock { value } }
}

/// The same names from an XCTest case in the same file.
@MainActor
final class NameClashXCTests: XCTestCase {
    func testUndoManagerAndSourceLocationResolve() async throws {
        let container = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = container.mainContext
        let undoManager: UndoManager = UndoManager()
        context.undoManager = undoManager
        context.insert(Trip(name: "Rome", destination: "Italy", startDate: .day(1), endDate: .day(4)))
        context.processPendingChanges()
        XCTAssertTrue(undoManager.canUndo)
        let location: SourceLocation? = nil
        XCTAssertNil(location)
    }
}
