import Foundation

/// The names of a format-3 package's files (docs/FORMAT.md, "Format 3"): pure
/// functions of what a file holds, never of its content or of the save that
/// wrote it, so an edit never renames a file and two branches' saves of one
/// object write one file.
///
/// ```swift
/// PackageLayout.partPath(entity: "Animal", id: 0x1a2b3c4d_00000005)  // "parts/Animal/1a2b3c4d-0000.xml"
/// PackageLayout.partPath(entity: "Animal", id: 37)                   // "parts/Animal/00000000-0000.xml"
/// PackageLayout.historyFileName(lane: 0x1a2b3c4d, number: 1)         // "1a2b3c4d-00000001.xml"
/// ```
///
/// A part holds one entity's objects of one lane whose sequence numbers share
/// their top bits (`seq >> 12`, the bucket): at most 4,096 objects, about
/// 0.5 MiB. A reader finds parts and history by listing folders and takes only
/// names these functions produce (``part(ofFileName:)``, ``history(ofFileName:)``):
/// anything else is ignored, never read, never removed.
enum PackageLayout {
    /// The folder of part files, and of history files.
    static let partsFolderName = "parts"
    static let historyFolderName = "history"
    /// How many sequence numbers one part's bucket spans (`seq >> 12`).
    static let bucketBits: UInt64 = 12
    static let objectsPerBucket: UInt64 = 1 << bucketBits

    /// `parts/ENTITY`: the folder of one entity's parts.
    static func partFolder(entity: String) -> String { partsFolderName + "/" + entity }

    /// The lane and bucket of an identifier's part.
    static func part(of id: UInt64) -> (lane: UInt64, bucket: UInt64) {
        (IdentifierAllocator.lane(of: id), IdentifierAllocator.sequence(of: id) >> bucketBits)
    }

    /// `LLLLLLLL-BBBB.xml`: the lane in 8 lower-case hex digits, the bucket in at
    /// least 4 (more only when it needs them, never a leading zero beyond 4).
    static func partFileName(lane: UInt64, bucket: UInt64) -> String {
        hex(lane, width: 8) + "-" + hex(bucket, width: 4) + ".xml"
    }

    /// The file name of the part holding identifier `id`.
    static func partFileName(id: UInt64) -> String {
        let (lane, bucket) = part(of: id)
        return partFileName(lane: lane, bucket: bucket)
    }

    /// `parts/ENTITY/LLLLLLLL-BBBB.xml`, package-relative.
    static func partPath(entity: String, id: UInt64) -> String {
        partFolder(entity: entity) + "/" + partFileName(id: id)
    }

    /// The identifiers a part may hold: its lane's sequence numbers `bucket << 12 ..< (bucket + 1) << 12`.
    static func identifiers(lane: UInt64, bucket: UInt64) -> ClosedRange<UInt64> {
        let first = lane << 32 | bucket << bucketBits
        return first...(first + objectsPerBucket - 1)
    }

    /// The lane and bucket a part file's name says, if it is exactly a name
    /// ``partFileName(lane:bucket:)`` produces (one name per part: no upper
    /// case, no extra leading zero, a lane below 2³¹, a bucket below 2²⁰).
    static func part(ofFileName name: String) -> (lane: UInt64, bucket: UInt64)? {
        guard name.hasSuffix(".xml") else { return nil }
        let stem = name.dropLast(4)
        let pieces = stem.split(separator: "-", omittingEmptySubsequences: false)
        guard pieces.count == 2, pieces[0].utf8.count == 8, pieces[1].utf8.count >= 4, pieces[1].utf8.count <= 5,
            pieces.allSatisfy({ $0.utf8.allSatisfy(isLowerHex) }),
            let lane = UInt64(pieces[0], radix: 16), let bucket = UInt64(pieces[1], radix: 16),
            lane < IdentifierAllocator.lanes.upperBound, bucket < (1 << (32 - bucketBits)),
            partFileName(lane: lane, bucket: bucket) == name
        else { return nil }
        return (lane, bucket)
    }

    /// `LLLLLLLL-NNNNNNNN.xml`: the `number`th history file (from 1) of the
    /// writer of lane `lane`, both in lower-case hex (8 digits each).
    static func historyFileName(lane: UInt64, number: Int) -> String {
        hex(lane, width: 8) + "-" + hex(UInt64(number), width: 8) + ".xml"
    }

    /// The writer's lane and the file's number, if `name` is exactly a name
    /// ``historyFileName(lane:number:)`` produces.
    static func history(ofFileName name: String) -> (lane: UInt64, number: Int)? {
        guard name.utf8.count == 21, name.hasSuffix(".xml") else { return nil }
        let pieces = name.dropLast(4).split(separator: "-", omittingEmptySubsequences: false)
        guard pieces.count == 2, pieces[0].utf8.count == 8, pieces[1].utf8.count == 8,
            pieces.allSatisfy({ $0.utf8.allSatisfy(isLowerHex) }),
            let lane = UInt64(pieces[0], radix: 16), let number = UInt64(pieces[1], radix: 16),
            lane < IdentifierAllocator.lanes.upperBound, number > 0
        else { return nil }
        return (lane, Int(number))
    }

    /// The number of a transaction: `lane << 32 | seq`, like an identifier, so
    /// two writers never number two transactions alike.
    static func transactionNumber(lane: UInt64, sequence: UInt64) -> Int64 {
        Int64(bitPattern: lane << 32 | sequence)
    }

    private static func isLowerHex(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x61...0x66).contains(byte)
    }

    private static func hex(_ value: UInt64, width: Int) -> String {
        let digits = String(value, radix: 16)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }
}
