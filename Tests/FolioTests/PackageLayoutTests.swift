import Foundation
import Testing
import Folio
@testable import FolioCore

/// Format 3's file names are pure functions of entity and identifier (issue 30,
/// item 2; docs/FORMAT.md): an edit never renames a file, and a reader takes
/// only exactly these names.
@Suite struct PackageLayoutTests {
    @Test("a part's path is a function of entity and id: lane in 8 hex digits, bucket seq >> 12 in at least 4")
    func partNames() {
        #expect(PackageLayout.partPath(entity: "Animal", id: 0x1a2b3c4d_00000005) == "parts/Animal/1a2b3c4d-0000.xml")
        #expect(PackageLayout.partPath(entity: "Animal", id: 0x1a2b3c4d_00000fff) == "parts/Animal/1a2b3c4d-0000.xml")
        #expect(PackageLayout.partPath(entity: "Animal", id: 0x1a2b3c4d_00001000) == "parts/Animal/1a2b3c4d-0001.xml")
        #expect(PackageLayout.partPath(entity: "Animal", id: 0x7fffffff_ffffffff) == "parts/Animal/7fffffff-fffff.xml")
        // Legacy ids (lane 0) keep their numbers and get lane 0's parts.
        #expect(PackageLayout.partPath(entity: "AnimalCategory", id: 37) == "parts/AnimalCategory/00000000-0000.xml")
        #expect(PackageLayout.partPath(entity: "Animal", id: 5_000) == "parts/Animal/00000000-0001.xml")
        // Every id of a part's range maps to it, and none outside it.
        let range = PackageLayout.identifiers(lane: 0x1a2b_3c4d, bucket: 3)
        #expect(range.count == 4_096)
        #expect(PackageLayout.partFileName(id: range.lowerBound) == "1a2b3c4d-0003.xml")
        #expect(PackageLayout.partFileName(id: range.upperBound) == "1a2b3c4d-0003.xml")
        #expect(PackageLayout.partFileName(id: range.upperBound + 1) == "1a2b3c4d-0004.xml")
    }

    @Test("a name reads back to its lane and bucket; any other spelling is not a part's name")
    func partNamesReadBack() {
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<1_000 {
            let id = UInt64.random(in: 1..<(1 << 63), using: &rng)
            let name = PackageLayout.partFileName(id: id)
            let parsed = PackageLayout.part(ofFileName: name)
            #expect(parsed?.lane == id >> 32 && parsed?.bucket == (id & 0xFFFF_FFFF) >> 12, "\(name)")
            let range = PackageLayout.identifiers(lane: parsed?.lane ?? 0, bucket: parsed?.bucket ?? 0)
            #expect(range.contains(id))
        }
        for name in [
            "1A2B3C4D-0000.xml", "1a2b3c4d-000.xml", "1a2b3c4d-00000.xml", "01a2b3c4d-0000.xml", "1a2b3c4d-0000.XML",
            "1a2b3c4d_0000.xml", "1a2b3c4d-0000.xml.tmp", ".1a2b3c4d-0000.xml.tmp", "80000000-0000.xml",
            "Animal-2-0c5a1e7f3b9d2468.xml", "notes.txt", "1a2b3c4d-0000", "../00000000-0000.xml", "1a2b3c4d-+000.xml",
        ] {
            #expect(PackageLayout.part(ofFileName: name) == nil, "\(name)")
        }
    }

    @Test("history files are named by their writer's lane and a number; transaction numbers are numbered like ids")
    func historyNames() {
        #expect(PackageLayout.historyFileName(lane: 0x1a2b_3c4d, number: 1) == "1a2b3c4d-00000001.xml")
        #expect(PackageLayout.history(ofFileName: "1a2b3c4d-00000001.xml")?.lane == 0x1a2b_3c4d)
        #expect(PackageLayout.history(ofFileName: "1a2b3c4d-0000001a.xml")?.number == 26)
        for name in ["1a2b3c4d-00000000.xml", "1a2b3c4d-1.xml", "1-5d1c0e9b7a3f2468.xml", "1A2B3C4D-00000001.xml", "x"] {
            #expect(PackageLayout.history(ofFileName: name) == nil, "\(name)")
        }
        #expect(PackageLayout.transactionNumber(lane: 0x1a2b_3c4d, sequence: 7) == 0x1a2b3c4d_00000007)
    }
}
