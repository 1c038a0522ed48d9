import Foundation
import Observation
#if canImport(Glibc)
import Glibc
#endif

/// Whether observation tracking (`withObservationTracking`, and what builds
/// on it) is active on the calling thread.
///
/// A model records each read with its `ObservationRegistrar`, and that
/// registrar costs three allocations and a mutex: most of a fetched model's
/// memory, made on its first read, for a record that is dropped at once when
/// nothing tracks. A model read outside tracking can go without one: no
/// observer can be watching it (an observer watches what it read under
/// tracking), so a read under tracking, whenever it comes, makes the
/// registrar then.
///
/// Observation keeps its "tracking is active" state in a thread-local that
/// its library does not export: `_swift_observation_tls_get` is a local
/// symbol of `libswiftObservation.so`. On Linux the probe finds it in the
/// library's own symbol table, takes the load address from an exported
/// symbol, checks that the code in memory at both addresses is the code the
/// file holds for them (the file read is the library loaded, not another at
/// its path), and proves the function before trusting it: it must read
/// a new pointer inside `withObservationTracking`, and what it read before
/// (`nil` outside tracking) once that returns.
/// Anywhere that fails (another platform, a stripped or changed library),
/// ``mayBeTracking`` is always `true`: every read makes its registrar, as a
/// registrar in every instance (SwiftData's way) would.
@usableFromInline
enum ObservationTrackingProbe {
    @usableFromInline typealias ThreadLocalGetter = @convention(c) () -> UnsafeMutableRawPointer?

    /// Observation's thread-local getter, when found and proven: `nil` until
    /// ``install()``. A variable with a constant initial value, which Swift
    /// lays out statically: every model read consults it, and a `static let`
    /// would pass a once-only check on each.
    @usableFromInline
    nonisolated(unsafe) static var getter: ThreadLocalGetter? = nil

    /// Finds the getter, once per process. A context calls it when it first
    /// resolves a model class's columns, before it reads a model of that
    /// class; a model read before any context did is read as though tracking
    /// were active.
    static func install() { _ = installed }

    /// Writes `getter` exactly once. Reads may race with that one write and
    /// see `nil`, which is the safe answer.
    private static let installed: Void = { getter = locate() }()

    /// `false` only when tracking is certainly not active on this thread.
    @inlinable
    static var mayBeTracking: Bool {
        guard let getter else { return true }
        return getter() != nil
    }

    /// Finds and proves the getter; `nil` when it cannot.
    static func locate() -> ThreadLocalGetter? {
        #if os(Linux)
        // ObservationRegistrar.init(): exported, so dlsym gives its address in the loaded library.
        let exported = "$s11Observation0A9RegistrarVACycfC"
        guard let exportedAddress = dlsym(nil /* RTLD_DEFAULT */, exported) else { return nil }
        guard let path = mappedFile(containing: UInt(bitPattern: exportedAddress)),
            let image = FileManager.default.contents(atPath: path)
        else { return nil }
        let symbols = ELFSymbols(image)
        guard let exportedFunction = symbols.function(named: exported),
            let getterFunction = symbols.function(named: "_swift_observation_tls_get")
        else { return nil }
        // The load bias, from the exported symbol: where the local one lies too.
        let bias = Int(bitPattern: exportedAddress) - Int(truncatingIfNeeded: exportedFunction.value)
        guard let address = UnsafeRawPointer(bitPattern: bias + Int(truncatingIfNeeded: getterFunction.value)) else { return nil }
        // The file read must be the library loaded (not another file at its path):
        // both functions' code in memory is the code the file has for them.
        guard matches(exportedFunction.code, at: UnsafeRawPointer(exportedAddress)),
            matches(getterFunction.code, at: address)
        else { return nil }
        let getter = unsafeBitCast(address, to: ThreadLocalGetter.self)
        return prove(getter) ? getter : nil
        #else
        return nil
        #endif
    }

    /// Whether the memory at `address` holds `code` (at least 8 bytes of it).
    static func matches(_ code: [UInt8], at address: UnsafeRawPointer) -> Bool {
        code.count >= 8 && UnsafeRawBufferPointer(start: address, count: code.count).elementsEqual(code)
    }

    /// The file mapped at `address` in this process (`/proc/self/maps`).
    static func mappedFile(containing address: UInt) -> String? {
        // Read to the end: the file's size reads as zero, so it cannot be read by size.
        let descriptor = open("/proc/self/maps", O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = chunk.withUnsafeMutableBytes { FileIO.readRetrying(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            bytes += chunk[..<count]
        }
        // Scanned as bytes: made into strings and split, the few hundred lines would
        // cost more than the fetch they are read for.
        return bytes.withUnsafeBufferPointer { maps in
            var lineStart = 0
            while lineStart < maps.count {
                var lineEnd = lineStart
                while lineEnd < maps.count, maps[lineEnd] != UInt8(ascii: "\n") { lineEnd += 1 }
                defer { lineStart = lineEnd + 1 }
                // start-end perms offset device inode path
                var position = lineStart
                guard let start = hexadecimal(maps, &position, to: lineEnd, ending: UInt8(ascii: "-")),
                    let end = hexadecimal(maps, &position, to: lineEnd, ending: UInt8(ascii: " ")),
                    start <= address, address < end
                else { continue }
                // Past perms, offset, device and inode to the path, if any.
                for _ in 0..<4 {
                    while position < lineEnd, maps[position] != UInt8(ascii: " ") { position += 1 }
                    while position < lineEnd, maps[position] == UInt8(ascii: " ") { position += 1 }
                }
                var pathEnd = lineEnd
                while pathEnd > position, maps[pathEnd - 1] == UInt8(ascii: " ") { pathEnd -= 1 }
                guard position < pathEnd, maps[position] == UInt8(ascii: "/") else { return nil }
                return String(decoding: UnsafeBufferPointer(rebasing: maps[position..<pathEnd]), as: UTF8.self)
            }
            return nil
        }
    }

    /// The hexadecimal number at `position` in `maps`, up to `ending` (which
    /// `position` is left after); `nil` if anything else comes first.
    private static func hexadecimal(
        _ maps: UnsafeBufferPointer<UInt8>, _ position: inout Int, to lineEnd: Int,
        ending: UInt8
    ) -> UInt? {
        var value: UInt = 0
        var digits = 0
        while position < lineEnd, maps[position] != ending {
            let byte = maps[position]
            let digit: UInt
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt(byte - UInt8(ascii: "a")) + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt(byte - UInt8(ascii: "A")) + 10
            default: return nil
            }
            guard digits < 2 * MemoryLayout<UInt>.size else { return nil }
            value = value << 4 | digit
            digits += 1
            position += 1
        }
        guard digits > 0, position < lineEnd else { return nil }
        position += 1
        return value
    }

    /// Whether `getter` reads what Observation's thread-local holds: a new
    /// pointer inside `withObservationTracking`, and what it held before
    /// once that returns — `nil` outside tracking, the outer tracking's list
    /// when the first typed read is itself under tracking.
    static func prove(_ getter: ThreadLocalGetter) -> Bool {
        let outside = getter()
        var inside: UnsafeMutableRawPointer?
        withObservationTracking {
            inside = getter()
        } onChange: {
        }
        return inside != nil && inside != outside && getter() == outside
    }
}

/// The symbol table of an ELF64 little-endian image, read defensively: a
/// look-up in anything else finds nothing.
struct ELFSymbols {
    private let image: Data

    init(_ image: Data) { self.image = image }

    /// A function symbol: its address in the image (`st_value`), and the
    /// first bytes of its code as the file holds them (empty when its
    /// section does not say where they lie).
    struct Function {
        let value: UInt64
        let code: [UInt8]
    }

    /// `st_value` of the function symbol named `name`.
    func value(of name: String) -> UInt64? { function(named: name)?.value }

    /// The function symbol named `name`, with up to `codeBytes` of its code.
    func function(named name: String, codeBytes: Int = 32) -> Function? {
        let wanted = Array(name.utf8)
        return image.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) -> Function? in
            func read<T: FixedWidthInteger>(_ offset: Int, as type: T.Type) -> T? {
                guard offset >= 0, offset <= bytes.count - MemoryLayout<T>.size else { return nil }
                return T(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: T.self))
            }
            /// An offset or size field, if it lies within the image.
            func place(_ offset: Int) -> Int? {
                guard let field = read(offset, as: UInt64.self), field <= UInt64(bytes.count) else { return nil }
                return Int(field)
            }
            // "\x7fELF", 64-bit, little-endian.
            guard bytes.count >= 64, bytes[0] == 0x7F, bytes[1] == 0x45, bytes[2] == 0x4C, bytes[3] == 0x46,
                bytes[4] == 2, bytes[5] == 1,
                let sections = place(40), let sectionSize = read(58, as: UInt16.self).map(Int.init),
                let sectionCount = read(60, as: UInt16.self).map(Int.init), sectionSize >= 64
            else { return nil }
            /// The file's bytes of code at `address` in section `section`.
            func code(at address: UInt64, size: UInt64, section: Int) -> [UInt8] {
                guard section < sectionCount else { return [] }
                let header = sections + section * sectionSize
                guard let start = read(header + 16, as: UInt64.self), let offset = place(header + 24),
                    let length = place(header + 32), address >= start, address - start < UInt64(length)
                else { return [] }
                let from = offset + Int(address - start)
                let count = min(codeBytes, Int(min(size, UInt64(length) - (address - start))), bytes.count - from)
                return count > 0 ? Array(bytes[from..<from + count]) : []
            }
            for section in 0..<sectionCount {
                let header = sections + section * sectionSize
                // SHT_SYMTAB (2), or SHT_DYNSYM (11) where the table was stripped.
                guard let kind = read(header + 4, as: UInt32.self), kind == 2 || kind == 11,
                    let offset = place(header + 24), let size = place(header + 32), size <= bytes.count - offset,
                    let link = read(header + 40, as: UInt32.self).map(Int.init), link < sectionCount,
                    let entrySize = place(header + 56), entrySize >= 24
                else { continue }
                let names = sections + link * sectionSize
                guard let namesAt = place(names + 24), let namesSize = place(names + 32),
                    namesSize <= bytes.count - namesAt
                else { continue }
                for entry in stride(from: offset, through: offset + size - 24, by: entrySize) {
                    // STT_FUNC (2), defined (section index not 0).
                    guard let info = read(entry + 4, as: UInt8.self), info & 0xF == 2,
                        let sectionIndex = read(entry + 6, as: UInt16.self), sectionIndex != 0,
                        let nameAt = read(entry, as: UInt32.self).map(Int.init), nameAt < namesSize - wanted.count
                    else { continue }
                    let start = namesAt + nameAt
                    let end = start + wanted.count
                    guard bytes[end] == 0, bytes[start..<end].elementsEqual(wanted),
                        let value = read(entry + 8, as: UInt64.self)
                    else { continue }
                    return Function(
                        value: value,
                        code: code(
                            at: value, size: read(entry + 16, as: UInt64.self) ?? 0,
                            section: Int(sectionIndex)))
                }
            }
            return nil
        }
    }
}
