import Foundation
import FolioTestSupport
import Folio
import Testing

// HistoryDescriptor.sortBy as an app writes it: the newest transactions first,
// by token or by timestamp, and a fetch limit applied after the sort.

@Suite @MainActor struct HistoryDescriptorSortTests {
    /// A store with four transactions, by alternating authors.
    func fourSaves(_ folder: TemporaryFolder) throws -> ModelContext {
        let container = try ModelContainer(
            for: Sighting.self,
            configurations: ModelConfiguration(url: folder.storeURL("Sorted.store")))
        let context = ModelContext(container)
        for (index, species) in ["Wren", "Robin", "Tit", "Owl"].enumerated() {
            context.author = index.isMultiple(of: 2) ? "a" : "b"
            context.insert(Sighting(species: species, count: index))
            try context.save()
        }
        return context
    }

    @Test func sortingByTokenInReverseGivesTheNewestFirst() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let context = try fourSaves(folder)
        let oldestFirst = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        #expect(oldestFirst.count == 4)
        #expect(oldestFirst.map(\.token) == oldestFirst.map(\.token).sorted())
        let newestFirst = try context.fetchHistory(
            HistoryDescriptor<DefaultHistoryTransaction>(
                sortBy: [SortDescriptor(\.token, order: .reverse)]))
        #expect(newestFirst.map(\.transactionIdentifier) == oldestFirst.reversed().map(\.transactionIdentifier))
        let ascending = try context.fetchHistory(
            HistoryDescriptor<DefaultHistoryTransaction>(
                sortBy: [SortDescriptor(\.transactionIdentifier)]))
        #expect(ascending.map(\.transactionIdentifier) == oldestFirst.map(\.transactionIdentifier))
    }

    @Test func aFetchLimitKeepsTheFirstTransactionsInTheSortedOrder() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let context = try fourSaves(folder)
        let all = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        var latestTwo = HistoryDescriptor<DefaultHistoryTransaction>(sortBy: [SortDescriptor(\.token, order: .reverse)])
        latestTwo.fetchLimit = 2
        #expect(try context.fetchHistory(latestTwo).map(\.token) == [all[3].token, all[2].token])
    }

    @Test func sortingByTimestampAndByAuthorThenTokenFollowsEachKeyInTurn() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let context = try fourSaves(folder)
        let all = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        let byTime = try context.fetchHistory(
            HistoryDescriptor<DefaultHistoryTransaction>(
                sortBy: [SortDescriptor(\.timestamp, order: .reverse)]))
        #expect(byTime.map(\.timestamp) == all.map(\.timestamp).sorted(by: >))
        // Author "b" before "a" (reverse), newest first within each.
        let byAuthor = try context.fetchHistory(
            HistoryDescriptor<DefaultHistoryTransaction>(
                predicate: #Predicate { $0.author != nil },
                sortBy: [SortDescriptor(\.author, order: .reverse), SortDescriptor(\.token, order: .reverse)]))
        #expect(byAuthor.map(\.token) == [all[3].token, all[1].token, all[2].token, all[0].token])
    }
}
