import Foundation
import PropertyBased
import Testing
import Folio
@testable import FolioCore
import FolioTestSupport

/// The one "did you mean" helper of every unknown-name error.
@Suite struct NameSuggestionsTests {
    /// A reference edit distance (optimal string alignment), unbounded and slow.
    static func referenceDistance(_ a: [Character], _ b: [Character]) -> Int {
        var table = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { table[i][0] = i }
        for j in 0...b.count { table[0][j] = j }
        for i in stride(from: 1, through: a.count, by: 1) {
            for j in stride(from: 1, through: b.count, by: 1) {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                table[i][j] = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    table[i][j] = min(table[i][j], table[i - 2][j - 2] + 1)
                }
            }
        }
        return table[a.count][b.count]
    }

    @Test("property: the bounded distance equals the reference within the bound, and exceeds the bound beyond it")
    func distance() async {
        let letters: [Character] = ["a", "b", "c", "é"]
        // Words as letter indices: a failure shrinks to the shortest words, toward "a", and the smallest bound.
        let word = Gen.int(in: 0...3).array(of: 0...7)
        await checkProperty(count: 300, input: word, word, Gen.int(in: 0...3)) { first, second, bound in
            let a = first.map { letters[$0] }
            let b = second.map { letters[$0] }
            let reference = Self.referenceDistance(a, b)
            let bounded = NameSuggestions.editDistance(a, b, atMost: bound)
            if reference <= bound {
                #expect(bounded == reference, "\(String(a)) \(String(b))")
            } else {
                #expect(bounded > bound, "\(String(a)) \(String(b))")
            }
        }
    }

    @Test("a predicate naming an unknown property suggests the close ones, relationships included")
    func predicateErrors() throws {
        let schema = try Schema([
            .init(
                "Owner", attributes: [.init("name", .string)],
                relationships: [.init("pets", to: "Pet", toMany: true, inverse: "owner")]),
            .init(
                "Pet", attributes: [.init("name", .string), .init("nickname", .string)],
                relationships: [.init("owner", to: "Owner", inverse: "pets")]),
        ])
        let context = ModelContext(try ModelContainer(for: schema, configurations: ModelConfiguration(isStoredInMemoryOnly: true)))
        #expect(throws: ModelError.predicate(ObjectPredicateError("Pet has no property 'nme'; did you mean 'name'?", column: 1))) {
            try context.fetchCount(DynamicFetchDescriptor(entity: "Pet", predicate: try ObjectPredicate("nme == 'x'")))
        }
        #expect(throws: ModelError.predicate(ObjectPredicateError("Pet has no property 'ownr'; did you mean 'owner'?", column: 1))) {
            try context.fetchCount(DynamicFetchDescriptor(entity: "Pet", predicate: try ObjectPredicate("ownr.name == 'x'")))
        }
    }

    @Test("a schema's index naming an unknown attribute suggests the close one")
    func schemaErrors() {
        do {
            _ = try Schema([.init("Pet", attributes: [.init("name", .string)], indexes: [["nam"]])])
            Issue.record("an index on an unknown attribute was accepted")
        } catch {
            #expect("\(error)".contains("Pet has no attribute 'nam'; did you mean 'name'?"), "\(error)")
        }
    }
}
