import Foundation
import Testing
@testable import FolioCore

@Suite struct CellMergeTests {
    func merge(_ rule: MergeSchema.AttributeRule, _ base: Value?, _ ours: Value, _ theirs: Value) throws -> CellMerge.Outcome {
        try CellMerge.merge(rule, base: base.map { .value($0) }, ours: .value(ours), theirs: .value(theirs))
    }

    @Test("a cell changed on one side takes that side's value, with no conflict")
    func oneSide() throws {
        let outcome = try merge(.cell, .int(1), .int(1), .int(2))
        #expect(outcome.cell == .value(.int(2)) && outcome.conflicts.isEmpty)
        #expect(try merge(.cell, .int(1), .int(3), .int(1)).cell == .value(.int(3)))
    }

    @Test("a cell changed on both sides to one value takes it, with no conflict")
    func sameChange() throws {
        let outcome = try merge(.cell, .string("a"), .string("b"), .string("b"))
        #expect(outcome.cell == .value(.string("b")) && outcome.conflicts.isEmpty)
    }

    @Test("a cell changed on both sides to different values keeps ours and records base, ours and theirs")
    func conflict() throws {
        let outcome = try merge(.cell, .int(1), .int(2), .int(3))
        #expect(outcome.cell == .value(.int(2)))
        #expect(outcome.conflicts.count == 1)
        #expect(outcome.conflicts.first?.base == .int(1) && outcome.conflicts.first?.theirs == .int(3))
    }

    @Test("sets merge element by element and never conflict")
    func sets() throws {
        let outcome = try merge(.set, .set([.int(1), .int(2)]), .set([.int(1), .int(2), .int(3)]), .set([.int(2), .int(4)]))
        #expect(outcome.cell == .value(.set([.int(2), .int(3), .int(4)])))
        #expect(outcome.conflicts.isEmpty)
    }

    @Test("dictionaries merge key by key; a key changed on both sides is a conflict of that key")
    func dictionaries() throws {
        let outcome = try merge(
            .dictionary, .dictionary(["a": .int(1), "b": .int(1), "c": .int(1)]),
            .dictionary(["a": .int(2), "b": .int(1), "c": .int(5)]),
            .dictionary(["a": .int(1), "c": .int(6), "d": .int(1)]))
        #expect(outcome.cell == .value(.dictionary(["a": .int(2), "c": .int(5), "d": .int(1)])))
        #expect(outcome.conflicts.count == 1)
        #expect(outcome.conflicts.first?.key == "c" && outcome.conflicts.first?.theirs == .int(6))
    }

    @Test("a key removed on one side and changed on the other is a conflict recording the removal as nil")
    func removedAndChangedKey() throws {
        let outcome = try merge(
            .dictionary, .dictionary(["k": .int(1), "z": .int(0)]), .dictionary(["z": .int(1)]),
            .dictionary(["k": .int(2), "z": .int(0)]))
        #expect(outcome.cell == .value(.dictionary(["z": .int(1)])))
        #expect(outcome.conflicts.first?.key == "k" && outcome.conflicts.first?.ours == nil)
    }

    @Test("two blobs with one name compare equal without being read")
    func blobsByName() throws {
        let read: @Sendable () throws -> Data = { throw CocoaError(.fileReadNoPermission) }
        let a = LazyBlob(name: "7-photo-abc.bin", package: "/one.folio", folder: "blobs", read: read)
        let b = LazyBlob(name: "7-photo-abc.bin", package: "/two.folio", folder: "blobs", read: read)
        #expect(try CellMerge.same(.blob(a), .blob(b)))
        let outcome = try CellMerge.merge(.cell, base: .blob(a), ours: .blob(b), theirs: .value(.data(Data([1]))))
        #expect(outcome.cell == .value(.data(Data([1]))) && outcome.conflicts.isEmpty)
        #expect(!a.isLoaded && !b.isLoaded)
    }
}
