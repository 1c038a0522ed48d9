import Foundation
import FolioTestSupport
import Testing
import Folio
@testable import FolioCore

/// A Git merge seen through history: Git unites two branches' history files
/// (each writer's are its own) and runs nothing that records a merge, so the
/// history reads with a merge transaction (author `DocumentPackage.mergeAuthor`)
/// above both branches, holding the changes each made since they parted: an
/// app holding either branch's last token sees the other's changes. Made here
/// by copying history files between package copies, as Git's union leaves them.
@Suite struct GitMergeHistoryTests {
    typealias Transaction = DefaultHistoryTransaction
    typealias Versions = MergeHistoryTests.Versions

    /// Copies the history files of `source` that `destination` lacks into it: what a Git merge does with them.
    static func uniteHistory(from source: URL, into destination: URL) throws {
        let from = source.appendingPathComponent(DocumentPackage.historyFolderName)
        let to = destination.appendingPathComponent(DocumentPackage.historyFolderName)
        for name in try FileManager.default.contentsOfDirectory(atPath: from.path)
        where !FileManager.default.fileExists(atPath: to.appendingPathComponent(name).path) {
            try FileManager.default.copyItem(at: from.appendingPathComponent(name), to: to.appendingPathComponent(name))
        }
    }

    /// The transactions the package's history files hold, as written (no merge made up).
    static func stored(_ url: URL) throws -> [StoredTransaction] {
        let package = DocumentPackage(url: url)
        let history = package.readHistory()
        return try history.log.storedTransactions(in: package.folder, limits: .standard, schema: history.schema)
    }

    /// Both branches' changes since they parted: theirs' (MergeHistoryTests.mergedIn) and ours' Kiwi.
    static func bothBranches(_ versions: Versions) -> [String] {
        (MergeHistoryTests.mergedIn(versions) + ["insert Animal#\(versions.kiwi.id)"]).sorted()
    }

    /// The versions of MergeHistoryTests (theirs saved first, then ours), theirs' history files united into ours'.
    static func unitedVersions(in folder: URL) throws -> Versions {
        let versions = try MergeHistoryTests.versions(in: folder)
        try uniteHistory(from: versions.theirs, into: versions.ours)
        return versions
    }

    @Test("a Git union of two branches' history reads with a merge transaction after ours' last token, holding both branches' changes")
    func unionReadsWithMergeTransaction() throws {
        let folder = try TemporaryFolder("git-merge-history")
        let versions = try Self.unitedVersions(in: folder.url)
        let context = try makeContext(try MergeHistoryTests.schema(), url: versions.ours)
        let after = try MergeHistoryTests.history(context, after: versions.oursToken)
        // Theirs saved before ours: without the merge, nothing would follow ours' token.
        let merge = try #require(after.last)
        #expect(after.count == 1)
        #expect(merge.author == DocumentPackage.mergeAuthor)
        #expect(MergeHistoryTests.lines(merge).sorted() == Self.bothBranches(versions))
        #expect(merge.tombstones.map(\.id.id) == [versions.tom.id])
        #expect(merge.tombstones.first?.values.first?.value == .string("Tom"))
        #expect(versions.numbers.allSatisfy { $0 < merge.transactionIdentifier })
    }

    @Test("an app holding theirs' last token sees ours' save and the merge, which holds ours' changes too")
    func theirsTokenSeesOurs() throws {
        let folder = try TemporaryFolder("git-merge-history")
        let versions = try Self.unitedVersions(in: folder.url)
        let theirs = try Self.stored(versions.theirs)
        let theirsToken = DefaultHistoryToken(transactionNumber: try #require(theirs.last?.number))
        let context = try makeContext(try MergeHistoryTests.schema(), url: versions.ours)
        let after = try MergeHistoryTests.history(context, after: theirsToken)
        #expect(after.map(\.author) == ["ours", DocumentPackage.mergeAuthor])
        #expect(try MergeHistoryTests.lines(#require(after.last)).contains("insert Animal#\(versions.kiwi.id)"))
    }

    @Test("the merge transaction is the same at every open until a save persists it, which numbers itself above it")
    func deterministicThenPersisted() throws {
        let folder = try TemporaryFolder("git-merge-history")
        let versions = try Self.unitedVersions(in: folder.url)
        let schema = try MergeHistoryTests.schema()
        func merge() throws -> Transaction {
            let context = try makeContext(schema, url: versions.ours)
            return try #require(try MergeHistoryTests.history(context).last)
        }
        let (first, second) = (try merge(), try merge())
        #expect(first.transactionIdentifier == second.transactionIdentifier)
        #expect(first.timestamp == second.timestamp)
        #expect(MergeHistoryTests.lines(first) == MergeHistoryTests.lines(second))
        #expect(try Self.stored(versions.ours).allSatisfy { $0.author != DocumentPackage.mergeAuthor }, "not written by reading")

        let context = try makeContext(schema, url: versions.ours)
        try context.setValue(.int(7), for: "age", of: versions.rex)
        try context.save()
        let stored = try Self.stored(versions.ours)
        let persisted = try #require(stored.first { $0.author == DocumentPackage.mergeAuthor })
        #expect(persisted.number == first.transactionIdentifier)
        let save = try #require(stored.last)
        #expect(save.number > persisted.number)
        #expect(save.parents == [persisted.number], "the save follows the merge alone")
        // Read again: the merge once, then the save, nothing made up.
        let history = try MergeHistoryTests.history(try makeContext(schema, url: versions.ours))
        #expect(history.filter { $0.author == DocumentPackage.mergeAuthor }.count == 1)
        #expect(history.last?.transactionIdentifier == save.number)
    }

    @Test("a HistoryObserver from ours' last token counts the merge at once, and the save that persists it as one more event")
    func observerSeesMerge() throws {
        let folder = try TemporaryFolder("git-merge-history")
        let versions = try Self.unitedVersions(in: folder.url)
        let context = try makeContext(try MergeHistoryTests.schema(), url: versions.ours)
        let merge = try #require(try MergeHistoryTests.history(context).last)
        let observer = try HistoryObserver(
            historyTokens: [merge.storeIdentifier: versions.oursToken],
            modelContainer: context.container)
        #expect(observer.eventCounter == 1)
        #expect(observer.historyTokens[merge.storeIdentifier] as? DefaultHistoryToken == merge.token)
        try context.setValue(.int(7), for: "age", of: versions.rex)
        try context.save()
        let save = try #require(try MergeHistoryTests.history(context).last)
        #expect(observer.eventCounter == 2)
        #expect(observer.historyTokens[merge.storeIdentifier] as? DefaultHistoryToken == save.token)
    }

    @Test("a Git merge made while the document is open: once taken in, the next save persists the merge and follows it")
    func unionTakenInWhileOpen() throws {
        let folder = try TemporaryFolder("git-merge-history")
        let versions = try MergeHistoryTests.versions(in: folder.url)
        let context = try makeContext(try MergeHistoryTests.schema(), url: versions.ours)
        try context.setValue(.int(6), for: "age", of: versions.rex)
        try context.save()
        // Git unites the history files and checks out the merged manifest (a new file in its place).
        try Self.uniteHistory(from: versions.theirs, into: versions.ours)
        let manifest = versions.ours.appendingPathComponent(PackageManifest.fileName)
        let checkedOut = versions.ours.appendingPathComponent("manifest.checkout")
        try FileManager.default.copyItem(at: manifest, to: checkedOut)
        #expect(rename(checkedOut.path, manifest.path) == 0)
        #expect(try context.container.sharedDocument.takeInOutsideSave())
        let merge = try #require(try MergeHistoryTests.history(context).last)
        #expect(merge.author == DocumentPackage.mergeAuthor)
        try context.setValue(.int(7), for: "age", of: versions.rex)
        try context.save()
        let stored = try Self.stored(versions.ours)
        #expect(stored.suffix(2).map(\.number) == [merge.transactionIdentifier, try #require(stored.last).number])
        #expect(stored.last?.parents == [merge.transactionIdentifier])
    }

    @Test("both branches persist the same merge: united again, it reads once, and their later saves merge again")
    func bothBranchesPersistTheMerge() throws {
        let folder = try TemporaryFolder("git-merge-history")
        let versions = try Self.unitedVersions(in: folder.url)
        try Self.uniteHistory(from: versions.ours, into: versions.theirs)
        let schema = try MergeHistoryTests.schema()
        for url in [versions.ours, versions.theirs] {
            let context = try makeContext(schema, url: url)
            try context.setValue(.int(url == versions.ours ? 8 : 9), for: "age", of: versions.rex)
            try context.save()
        }
        let merges = try Self.stored(versions.theirs).filter { $0.author == DocumentPackage.mergeAuthor }
        #expect(merges.count == 1)
        try Self.uniteHistory(from: versions.theirs, into: versions.ours)
        let stored = try Self.stored(versions.ours)
        #expect(stored.filter { $0.author == DocumentPackage.mergeAuthor }.count == 1, "the same merge, written twice, reads once")
        let history = try MergeHistoryTests.history(try makeContext(schema, url: versions.ours))
        let second = try #require(history.last)
        #expect(second.author == DocumentPackage.mergeAuthor && second.transactionIdentifier != merges.first?.number)
        #expect(MergeHistoryTests.lines(second) == ["update Animal#\(versions.rex.id) [\"age\"]"], "only what followed the first merge")
    }

    @Test("one writer over many sessions: each transaction follows the one before, and nothing is made up")
    func linearHistory() throws {
        let folder = try TemporaryFolder("git-merge-history")
        let url = folder.appending("Zoo.folio")
        let schema = try MergeHistoryTests.schema()
        for age in 1...4 {
            let context = try makeContext(schema, url: url)
            for index in 0..<2 { _ = try context.insert("Animal", ["name": .string("A\(age)-\(index)"), "age": .int(Int64(age))]) }
            try context.save()
            _ = try context.insert("Animal", ["name": .string("B\(age)"), "age": .int(Int64(age))])
            try context.save()
        }
        let stored = try Self.stored(url)
        #expect(stored.count == 8)
        #expect(stored.first?.parents == [])
        for (previous, next) in zip(stored, stored.dropFirst()) { #expect(next.parents == [previous.number]) }
        let history = try MergeHistoryTests.history(try makeContext(schema, url: url))
        #expect(history.map(\.transactionIdentifier) == stored.map(\.number))
        #expect(history.allSatisfy { $0.author != DocumentPackage.mergeAuthor })
    }

    @Test("a history written without parents (older Folio) follows by number: two branches of it read as before, unmerged")
    func historyWithoutParents() throws {
        let folder = try TemporaryFolder("git-merge-history")
        let versions = try MergeHistoryTests.versions(in: folder.url)
        for url in [versions.ours, versions.theirs] {
            let history = url.appendingPathComponent(DocumentPackage.historyFolderName)
            for name in try FileManager.default.contentsOfDirectory(atPath: history.path) {
                let file = history.appendingPathComponent(name)
                let text = try String(contentsOf: file, encoding: .utf8)
                let old = text.replacingOccurrences(of: #" parents="[0-9 ]*""#, with: "", options: .regularExpression)
                try Data(old.utf8).write(to: file)
            }
        }
        try Self.uniteHistory(from: versions.theirs, into: versions.ours)
        #expect(try Self.stored(versions.ours).allSatisfy { $0.parents == nil })
        let history = try MergeHistoryTests.history(try makeContext(try MergeHistoryTests.schema(), url: versions.ours))
        #expect(history.count == 3)
        #expect(history.allSatisfy { $0.author != DocumentPackage.mergeAuthor })
    }

    @Test("a package merge's transaction names the heads of the united history: nothing more is made up on top of it")
    func packageMergeNamesHeads() throws {
        let folder = try TemporaryFolder("git-merge-history")
        let versions = try MergeHistoryTests.versions(in: folder.url)
        let out = folder.appending("Out.folio")
        try DocumentPackage.merge(base: versions.base, ours: versions.ours, theirs: versions.theirs, into: out)
        let stored = try Self.stored(out)
        let merge = try #require(stored.last)
        #expect(merge.author == DocumentPackage.mergeAuthor)
        let heads = HistoryLog.heads(of: Array(stored.dropLast()))
        #expect(heads.count == 2)
        #expect(merge.parents == heads)
        let history = try MergeHistoryTests.history(try makeContext(try MergeHistoryTests.schema(), url: out))
        #expect(history.filter { $0.author == DocumentPackage.mergeAuthor }.count == 1)
    }

    @Test("a parents attribute that is not ascending numbers below the transaction's is refused, located at its line")
    func malformedParentsRefused() throws {
        let folder = try TemporaryFolder("git-merge-history")
        let url = folder.appending("Zoo.folio")
        let schema = try MergeHistoryTests.schema()
        do {
            let context = try makeContext(schema, url: url)
            _ = try context.insert("Animal", ["name": .string("Rex"), "age": .int(1)])
            try context.save()
            _ = try context.insert("Animal", ["name": .string("Tom"), "age": .int(2)])
            try context.save()
        }
        let history = url.appendingPathComponent(DocumentPackage.historyFolderName)
        let name = try #require(try FileManager.default.contentsOfDirectory(atPath: history.path).first)
        let file = history.appendingPathComponent(name)
        let text = try String(contentsOf: file, encoding: .utf8)
        let stored = try Self.stored(url)
        let second = try #require(stored.last)
        let line =
            try #require(
                text.split(separator: "\n", omittingEmptySubsequences: false)
                    .firstIndex { $0.contains("id=\"\(second.number)\"") }) + 1
        for bad in ["\(second.number)", "\(second.number + 1)", "x", "\(stored[0].number) \(stored[0].number)"] {
            try Data(text.replacingOccurrences(of: "parents=\"\(stored[0].number)\"", with: "parents=\"\(bad)\"").utf8).write(to: file)
            #expect {
                _ = try Self.stored(url)
            } throws: { error in
                guard case .invalidValue(let location, _, let attribute, _, _) = error as? PackageError else { return false }
                return attribute == "parents" && location.file.hasSuffix(name) && location.line == line
            }
        }
    }

    // MARK: The union of changes

    static func transaction(_ number: Int64, parents: [Int64]?, _ build: (inout StoredTransaction) -> Void) -> StoredTransaction {
        var transaction = StoredTransaction(
            number: number, timestamp: Date(timeIntervalSince1970: Double(number)), author: nil,
            bundleIdentifier: "tests", processIdentifier: "\(number)")
        transaction.parents = parents
        build(&transaction)
        return transaction
    }

    @Test("the merge's changes: a delete wins over inserts and updates, an insert then updated stays an insert, updates' properties unite")
    func unionNormalises() throws {
        let history = [
            Self.transaction(1, parents: []) { $0.inserted = [.init(entity: "Animal", ids: [1, 2, 3])] },
            // Branch a: inserts 10, updates 1's name and 10's age, deletes 2.
            Self.transaction(2, parents: [1]) {
                $0.inserted = [.init(entity: "Animal", ids: [10])]
                $0.updated = [
                    .init(entity: "Animal", properties: ["name"], ids: [1]),
                    .init(entity: "Animal", properties: ["age"], ids: [10]),
                ]
            },
            // Branch b: updates 1's age and 2's name, deletes 2 with its tombstone.
            Self.transaction(3, parents: [1]) {
                $0.updated = [.init(entity: "Animal", properties: ["age"], ids: [1, 2])]
            },
            Self.transaction(4, parents: [2]) {
                $0.deleted = [.init(entity: "Animal", ids: [2])]
                $0.tombstones = [.init(entity: "Animal", id: 2, values: [("name", .string, .string("Tom"))])]
            },
            Self.transaction(5, parents: [3]) { $0.updated = [.init(entity: "Animal", properties: ["age"], ids: [3])] },
        ]
        let schema = try MergeHistoryTests.schema()
        #expect(HistoryLog.heads(of: history) == [4, 5])
        let merge = try #require(HistoryLog.merge(of: history, schema: schema))
        #expect(merge.number == 6 && merge.parents == [4, 5] && merge.author == DocumentPackage.mergeAuthor)
        #expect(merge.timestamp == history[4].timestamp && merge.processIdentifier == "5")
        #expect(merge.inserted == [.init(entity: "Animal", ids: [10])])
        #expect(
            merge.updated == [
                .init(entity: "Animal", properties: ["name", "age"], ids: [1]),
                .init(entity: "Animal", properties: ["age"], ids: [3]),
            ])
        #expect(merge.deleted == [.init(entity: "Animal", ids: [2])])
        #expect(merge.tombstones.map(\.id) == [2])
        // What both branches follow (transaction 1) is not in it.
        #expect(!merge.inserted.contains { $0.ids.contains(1) })
    }

    @Test("a transaction naming a deleted parent follows everything up to it: a history deleted in the middle is not branched")
    func deletedParentFollowsByNumber() {
        let history = [
            Self.transaction(1, parents: []) { $0.inserted = [.init(entity: "Animal", ids: [1])] },
            Self.transaction(3, parents: [2]) { $0.inserted = [.init(entity: "Animal", ids: [3])] },
        ]
        #expect(HistoryLog.heads(of: history) == [3])
        #expect(HistoryLog.merge(of: history, schema: nil) == nil)
    }
}
