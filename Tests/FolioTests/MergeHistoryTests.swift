import Foundation
import FolioTestSupport
import Testing
import Folio
@testable import FolioCore

/// A package merge seen through the merged package's history: one merge
/// transaction (author `DocumentPackage.mergeAuthor`) after ours' last token,
/// holding exactly what the merge brought into ours, so an app that syncs
/// from history sees theirs' changes even when theirs saved them before ours'
/// last save.
@Suite struct MergeHistoryTests {
    typealias Transaction = DefaultHistoryTransaction

    /// The zoo, with an animal's name kept in the history when it is deleted.
    static func schema() throws -> Schema {
        try Schema([
            .init(
                "AnimalCategory", attributes: [.init("name", .string, options: [.unique])],
                relationships: [.init("animals", to: "Animal", toMany: true, inverse: "category", deleteRule: .cascade)]),
            .init(
                "Animal", attributes: [.init("name", .string, options: [.preserveValueOnDeletion]), .init("age", .int)],
                relationships: [.init("category", to: "AnimalCategory", inverse: "animals")]),
        ])
    }

    /// The changes of a transaction as `kind entity#id [properties]` lines (``ModelContextHistoryTests/lines(_:)``).
    static func lines(_ transaction: Transaction) -> [String] { ModelContextHistoryTests.lines(transaction) }

    static func history(_ context: ModelContext, after token: DefaultHistoryToken? = nil) throws -> [Transaction] {
        guard let token else { return try context.fetchHistory(HistoryDescriptor<Transaction>()) }
        return try context.fetchHistory(HistoryDescriptor<Transaction>(predicate: #Predicate { $0.token > token }))
    }

    /// Three versions of one zoo and what each side did: theirs inserted
    /// Polly into birds, aged Rex and deleted Tom; ours inserted Kiwi into
    /// birds (so both changed birds' part) and is where the app synced from.
    struct Versions {
        var base, ours, theirs: URL
        var mammals, birds, rex, tom, polly, kiwi: PersistentIdentifier
        /// Ours' last transaction's token: what the app syncing from ours last saw.
        var oursToken: DefaultHistoryToken
        /// Every transaction number ours' and theirs' histories hold.
        var numbers: Set<Int64>
    }

    /// Builds the versions in `folder`: the base saved by a container, copied as
    /// ours and theirs, each edited and saved by a container of its own — theirs first,
    /// so ours' last token is above theirs' transactions (the case an app missed).
    static func versions(in folder: URL) throws -> Versions {
        let schema = try schema()
        let base = folder.appendingPathComponent("Base.folio")
        let (ours, theirs) = (folder.appendingPathComponent("Ours.folio"), folder.appendingPathComponent("Theirs.folio"))
        let mammals: PersistentIdentifier, birds: PersistentIdentifier, rex: PersistentIdentifier, tom: PersistentIdentifier
        do {
            let context = try makeContext(schema, url: base)
            mammals = try context.insert("AnimalCategory", ["name": .string("Mammals")])
            birds = try context.insert("AnimalCategory", ["name": .string("Birds")])
            rex = try context.insert("Animal", ["name": .string("Rex"), "age": .int(3)])
            tom = try context.insert("Animal", ["name": .string("Tom"), "age": .int(5)])
            try context.link(rex, "category", to: mammals)
            try context.link(tom, "category", to: mammals)
            try context.save()
        }
        try FileManager.default.copyItem(at: base, to: ours)
        try FileManager.default.copyItem(at: base, to: theirs)
        let polly: PersistentIdentifier, kiwi: PersistentIdentifier, oursToken: DefaultHistoryToken
        var numbers = Set<Int64>()
        do {
            let context = try makeContext(schema, url: theirs)
            context.author = "theirs"
            polly = try context.insert("Animal", ["name": .string("Polly"), "age": .int(1)])
            try context.link(polly, "category", to: birds)
            try context.setValue(.int(4), for: "age", of: rex)
            try context.delete(tom)
            try context.save()
            numbers.formUnion(try history(context).map(\.transactionIdentifier))
        }
        do {
            let context = try makeContext(schema, url: ours)
            context.author = "ours"
            kiwi = try context.insert("Animal", ["name": .string("Kiwi"), "age": .int(2)])
            try context.link(kiwi, "category", to: birds)
            try context.save()
            let saved = try history(context)
            numbers.formUnion(saved.map(\.transactionIdentifier))
            oursToken = try #require(saved.last?.token)
        }
        return Versions(
            base: base, ours: ours, theirs: theirs, mammals: mammals, birds: birds, rex: rex, tom: tom, polly: polly,
            kiwi: kiwi, oursToken: oursToken, numbers: numbers)
    }

    /// What the merge brought into ours: theirs' insert, update and delete, and
    /// the relationships' other sides they changed.
    static func mergedIn(_ versions: Versions) -> [String] {
        [
            "insert Animal#\(versions.polly.id)",
            "update AnimalCategory#\(versions.mammals.id) [\"animals\"]",
            "update AnimalCategory#\(versions.birds.id) [\"animals\"]",
            "update Animal#\(versions.rex.id) [\"age\"]",
            "delete Animal#\(versions.tom.id)",
        ]
    }

    /// The merge transaction of the package at `url`, checked against
    /// `versions`: the last transaction after ours' token, by the merge author,
    /// numbered above every other, its changes exactly what the merge brought in.
    @discardableResult
    static func expectMergeTransaction(_ context: ModelContext, _ versions: Versions) throws -> Transaction {
        let after = try history(context, after: versions.oursToken)
        let merge = try #require(after.last)
        #expect(merge.author == DocumentPackage.mergeAuthor)
        #expect(lines(merge).sorted() == mergedIn(versions).sorted())
        #expect(merge.tombstones.map(\.id.id) == [versions.tom.id])
        #expect(merge.tombstones.first?.values.map(\.name) == ["name"])
        #expect(merge.tombstones.first?.values.first?.value == .string("Tom"))
        // Above every transaction of the versions, and of the merged history.
        #expect(versions.numbers.allSatisfy { $0 < merge.transactionIdentifier })
        #expect(try history(context).filter { $0.author == DocumentPackage.mergeAuthor }.count == 1)
        #expect(try history(context).last?.transactionIdentifier == merge.transactionIdentifier)
        return merge
    }

    @Test("file by file: fetching after ours' last token returns the merge transaction, holding exactly what theirs brought in")
    func fileByFileMergeTransaction() throws {
        let folder = try TemporaryFolder("merge-history")
        let versions = try Self.versions(in: folder.url)
        let out = folder.appending("Out.folio")
        let result = try DocumentPackage.merge(base: versions.base, ours: versions.ours, theirs: versions.theirs, into: out)
        #expect(result.method == .fileByFile)
        #expect(DocumentPackage.formatVersion(of: out) == "3")
        let merge: Transaction
        do {
            let context = try makeContext(try Self.schema(), url: out)
            merge = try Self.expectMergeTransaction(context, versions)
            // The merged document is what the transaction says: Polly in, Tom out, Rex aged.
            #expect(try context.value("age", of: versions.rex) == .int(4))
            #expect(context.contains(versions.polly) && !context.contains(versions.tom))
        }
        // Reopened, the history reads the same; the next save is numbered above the merge.
        let context = try makeContext(try Self.schema(), url: out)
        let again = try Self.expectMergeTransaction(context, versions)
        #expect(again.transactionIdentifier == merge.transactionIdentifier)
        try context.setValue(.int(6), for: "age", of: versions.rex)
        try context.save()
        let last = try #require(try Self.history(context).last)
        #expect(last.transactionIdentifier > merge.transactionIdentifier)
        #expect(last.author == nil)
    }

    @Test("into ours itself, as git merge-file writes: ours' history kept, the merge transaction after it")
    func mergeIntoOurs() throws {
        let folder = try TemporaryFolder("merge-history")
        let versions = try Self.versions(in: folder.url)
        let before = Set(DocumentPackage.packageFiles(in: versions.ours).filter { $0.hasPrefix("history/") })
        try DocumentPackage.merge(base: versions.base, ours: versions.ours, theirs: versions.theirs, into: versions.ours)
        let after = Set(DocumentPackage.packageFiles(in: versions.ours).filter { $0.hasPrefix("history/") })
        // Ours' files, theirs', and one of the merge's own lane.
        #expect(before.isSubset(of: after))
        #expect(after.count == before.count + 2)
        let context = try makeContext(try Self.schema(), url: versions.ours)
        try Self.expectMergeTransaction(context, versions)
    }

    @Test("theirs changed nothing: the result is ours, and no merge transaction is recorded")
    func noChangeNoTransaction() throws {
        let folder = try TemporaryFolder("merge-history")
        let versions = try Self.versions(in: folder.url)
        let out = folder.appending("Out.folio")
        try DocumentPackage.merge(base: versions.base, ours: versions.ours, theirs: versions.base, into: out)
        #expect(DocumentPackage.packageFiles(in: out) == DocumentPackage.packageFiles(in: versions.ours))
        let context = try makeContext(try Self.schema(), url: out)
        #expect(try Self.history(context).allSatisfy { $0.author != DocumentPackage.mergeAuthor })
        #expect(try Self.history(context, after: versions.oursToken).isEmpty)
    }

    @Test("whole graphs (format 2 versions): ours' history is kept, then the merge transaction; theirs' clashing numbers are not")
    func wholeGraphMergeTransaction() throws {
        let folder = try TemporaryFolder("merge-history")
        let older = folder.appending("versions")
        try FileManager.default.createDirectory(at: older, withIntermediateDirectories: true)
        DocumentPackage.writeFormat2(true, under: older.path)
        defer { DocumentPackage.writeFormat2(false, under: older.path) }
        let versions = try Self.versions(in: older)
        #expect(DocumentPackage.formatVersion(of: versions.ours) == PackageManifest.formatVersion)
        // Format 2 numbers each branch's saves from the base's: theirs' save and ours' are both number 2.
        #expect(versions.numbers == [1, 2])
        #expect(versions.oursToken == DefaultHistoryToken(transactionNumber: 2))

        let out = folder.appending("Out.folio")
        let result = try DocumentPackage.merge(base: versions.base, ours: versions.ours, theirs: versions.theirs, into: out)
        #expect(result.method == .wholeGraph)
        #expect(DocumentPackage.formatVersion(of: out) == "3")
        let context = try makeContext(try Self.schema(), url: out)
        let all = try Self.history(context)
        // Ours' two transactions (the base's save, ours' save), then the merge's.
        #expect(all.map(\.author) == [nil, "ours", DocumentPackage.mergeAuthor])
        #expect(Array(all.map(\.transactionIdentifier).prefix(2)) == [1, 2])
        #expect(Self.lines(all[1]) == ["insert Animal#\(versions.kiwi.id)", "update AnimalCategory#\(versions.birds.id) [\"animals\"]"])
        let merge = try Self.expectMergeTransaction(context, versions)
        #expect(try Self.history(context, after: versions.oursToken).map(\.transactionIdentifier) == [merge.transactionIdentifier])
    }

    @Test("the merge transaction is numbered above every version's history; a later merge's is above it and holds only its own edits")
    func numbering() throws {
        let folder = try TemporaryFolder("merge-history")
        let versions = try Self.versions(in: folder.url)
        let out = folder.appending("Out.folio")
        try DocumentPackage.merge(base: versions.base, ours: versions.ours, theirs: versions.theirs, into: out)
        let highest = DocumentPackage.highestTransactionNumber(in: [out])
        #expect(versions.numbers.allSatisfy { $0 < highest })
        // Theirs edited again after the merge, and merged with its common ancestor, theirs: the second
        // merge's transaction comes after the first, and holds only the new edit.
        let edited = folder.appending("Edited.folio")
        try FileManager.default.copyItem(at: versions.theirs, to: edited)
        do {
            let context = try makeContext(try Self.schema(), url: edited)
            try context.setValue(.string("Polly Parrot"), for: "name", of: versions.polly)
            try context.save()
        }
        let third = folder.appending("Third.folio")
        try DocumentPackage.merge(base: versions.theirs, ours: out, theirs: edited, into: third)
        let context = try makeContext(try Self.schema(), url: third)
        let merges = try Self.history(context).filter { $0.author == DocumentPackage.mergeAuthor }
        #expect(merges.count == 2)
        #expect(merges.last.map(Self.lines) == ["update Animal#\(versions.polly.id) [\"name\"]"])
        #expect(try Self.history(context).last?.transactionIdentifier == merges.last?.transactionIdentifier)
    }

    @Test("file by file: a part theirs changed that does not read refuses the merge, located in theirs at its line; nothing is written")
    func unreadablePartRefused() throws {
        let folder = try TemporaryFolder("merge-history")
        var files = PackageMergeTests.baseFiles
        let base = try PackageMergeTests.package("Base.folio", in: folder, files)
        let ours = try PackageMergeTests.package("Ours.folio", in: folder, files)
        files["parts/Animal/00000000-0000.xml"] =
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<objects entity=\"Animal\">\n"
            + "  <Animal f.id=\"2\" name=\"Newt\" diet=\"carnivorous\" category=\"1\"/>\n  <Animal f.id=\"3\" name=\n"
        let theirs = try PackageMergeTests.package("Theirs.folio", in: folder, files)
        let out = folder.appending("Out.folio")
        #expect {
            try DocumentPackage.merge(base: base, ours: ours, theirs: theirs, into: out)
        } throws: { error in
            guard case .package(let failure) = error as? PackageMergeError else { return false }
            return failure.description.hasPrefix(theirs.appendingPathComponent("parts/Animal/00000000-0000.xml").path + ":4:")
                || failure.description.hasPrefix(theirs.appendingPathComponent("parts/Animal/00000000-0000.xml").path + ":5:")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path).sorted() == ["Base.folio", "Ours.folio", "Theirs.folio"])
    }

    @Test("a merge written over an open document: its history shows the merge transaction after the app's token, and the store takes the merged objects in")
    func mergeOverOpenDocument() throws {
        let folder = try TemporaryFolder("merge-history")
        let versions = try Self.versions(in: folder.url)
        let context = try makeContext(try Self.schema(), url: versions.ours)
        #expect(try Self.history(context, after: versions.oursToken).isEmpty)
        #expect(!context.contains(versions.polly))
        try DocumentPackage.merge(base: versions.base, ours: versions.ours, theirs: versions.theirs, into: versions.ours)
        // The app syncing from history, with the container it had open: the history is read from the package as it is now.
        try Self.expectMergeTransaction(context, versions)
        // What a package watcher's wake-up runs (a HistoryObserver's or a ResultsObserver's container).
        #expect(try context.container.sharedDocument.takeInOutsideSave())
        // The context merges what was taken in at its next access (a fetch).
        #expect(try context.fetchCount(DynamicFetchDescriptor(entity: "Animal")) == 3)
        #expect(context.contains(versions.polly) && !context.contains(versions.tom))
        #expect(try context.value("age", of: versions.rex) == .int(4))
        // Saved over, the merge transaction stays, and the save comes after it.
        try context.setValue(.int(7), for: "age", of: versions.kiwi)
        try context.save()
        let after = try Self.history(context, after: versions.oursToken)
        #expect(after.map(\.author).suffix(2) == [DocumentPackage.mergeAuthor, nil])
        #expect(after.last.map(Self.lines) == ["update Animal#\(versions.kiwi.id) [\"age\"]"])
    }

    @Test("theirs added an attribute: objects holding its default are not updated by it, one holding another value is")
    func attributeAddedByTheirs() throws {
        let folder = try TemporaryFolder("merge-history")
        var files = PackageMergeTests.baseFiles
        let base = try PackageMergeTests.package("Base.folio", in: folder, files)
        let ours = try PackageMergeTests.package("Ours.folio", in: folder, files)
        files[PackageManifest.fileName] = PackageMergeTests.manifest.replacingOccurrences(
            of: #"<attribute name="diet" type="string"/>"#,
            with: #"<attribute name="diet" type="string"/>"# + "\n" + #"      <attribute name="legs" type="int" default="4"/>"#)
        files["parts/Animal/00000000-0000.xml"] = PackageMergeTests.part(
            "Animal",
            [
                #"<Animal f.id="2" name="Newt" diet="carnivorous" legs="6" category="1"/>"#,
                #"<Animal f.id="3" name="Tree Frog" diet="carnivorous" legs="4" category="1"/>"#,
            ])
        let theirs = try PackageMergeTests.package("Theirs.folio", in: folder, files)
        let out = folder.appending("Out.folio")
        #expect(try DocumentPackage.merge(base: base, ours: ours, theirs: theirs, into: out).method == .fileByFile)
        let (log, schema) = DocumentPackage(url: out).readHistory()
        #expect(schema?.entity(named: "Animal")?.attributes.map(\.name) == ["name", "diet", "legs"])
        let transactions = try log.transactions(in: DocumentPackage(url: out).folder, limits: .standard, schema: schema)
        let merge = try #require(transactions.last)
        #expect(merge.author == DocumentPackage.mergeAuthor)
        #expect(merge.inserted.isEmpty && merge.deleted.isEmpty)
        #expect(
            merge.updated == [
                StoredTransaction.Update(entity: "Animal", properties: ["name"], ids: [3]),
                StoredTransaction.Update(entity: "Animal", properties: ["legs"], ids: [2]),
            ])
    }

    @Test("whole graphs written in format 2 (its own tests): the manifest lists ours' history, then the merge transaction, numbered next", .format2)
    func wholeGraphInFormat2() throws {
        let folder = try TemporaryFolder("merge-history")
        let versions = try Self.versions(in: folder.url)
        let out = folder.appending("Out.folio")
        #expect(try DocumentPackage.merge(base: versions.base, ours: versions.ours, theirs: versions.theirs, into: out).method == .wholeGraph)
        #expect(DocumentPackage.formatVersion(of: out) == PackageManifest.formatVersion)
        let context = try makeContext(try Self.schema(), url: out)
        #expect(try Self.history(context).map(\.transactionIdentifier) == [1, 2, 3])
        let merge = try Self.expectMergeTransaction(context, versions)
        #expect(merge.transactionIdentifier == 3)
    }

    @Test("file by file: of a part the merge changed, only the objects whose lines differ from ours' are read")
    func onlyChangedLinesRead() throws {
        let folder = try TemporaryFolder("merge-history")
        var files = PackageMergeTests.baseFiles
        // A line no reader accepts (its category is not an identifier), the same in every version: never read.
        let newt = #"<Animal f.id="2" name="Newt" diet="carnivorous" category="not an identifier"/>"#
        files["parts/Animal/00000000-0000.xml"] = PackageMergeTests.part("Animal", [newt, PackageMergeTests.frog])
        let base = try PackageMergeTests.package("Base.folio", in: folder, files)
        let ours = try PackageMergeTests.package("Ours.folio", in: folder, files)
        files["parts/Animal/00000000-0000.xml"] = PackageMergeTests.part(
            "Animal",
            [
                newt, #"<Animal f.id="3" name="Tree Frog" diet="carnivorous" category="1"/>"#,
                #"<Animal f.id="4" name="Toad" diet="insects"/>"#,
            ])
        let theirs = try PackageMergeTests.package("Theirs.folio", in: folder, files)
        let out = folder.appending("Out.folio")
        try DocumentPackage.merge(base: base, ours: ours, theirs: theirs, into: out)
        let package = DocumentPackage(url: out)
        let merge = try #require(try package.readHistory().log.transactions(in: package.folder, limits: .standard, schema: nil).last)
        #expect(merge.author == DocumentPackage.mergeAuthor)
        #expect(merge.inserted == [StoredTransaction.Objects(entity: "Animal", ids: [4])])
        #expect(merge.updated == [StoredTransaction.Update(entity: "Animal", properties: ["name"], ids: [3])])
        #expect(merge.deleted.isEmpty)
        // No scratch file is left in the merged package.
        #expect(try FileManager.default.contentsOfDirectory(atPath: out.path).sorted() == ["blobs", "history", "manifest.xml", "parts"])
    }
}
