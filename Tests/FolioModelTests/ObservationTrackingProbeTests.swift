import Foundation
import Folio
@testable import FolioCore
import Observation
import PropertyBased
import Synchronization
import Testing
import FolioTestSupport

/// The probe that lets a model read outside observation tracking go without
/// a registrar, and the models that rely on it: a read under tracking, early
/// or late, must still be told of every change.
@Suite struct ObservationTrackingProbeTests {
    @Test func `the probe reads tracking as Observation does, on any thread`() async {
        ObservationTrackingProbe.install()
        #if os(Linux)
        #expect(ObservationTrackingProbe.getter != nil, "Observation's thread-local getter was not found: every read makes a registrar")
        #endif
        guard ObservationTrackingProbe.getter != nil else { return }
        #expect(!ObservationTrackingProbe.mayBeTracking)
        var inside = false
        withObservationTracking {
            inside = ObservationTrackingProbe.mayBeTracking
        } onChange: {
        }
        #expect(inside)
        #expect(!ObservationTrackingProbe.mayBeTracking)
        let elsewhere = await Task.detached { () -> [Bool] in
            var seen = [ObservationTrackingProbe.mayBeTracking]
            withObservationTracking {
                seen.append(ObservationTrackingProbe.mayBeTracking)
            } onChange: {
            }
            return seen
        }.value
        #expect(elsewhere == [false, true])
    }

    @MainActor @Test func `a model read outside tracking makes no registrar; read under tracking later, it is told of changes`() throws {
        let container = try ModelContainer(for: AnimalCategory.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = container.mainContext
        let birds = AnimalCategory(name: "Bird")
        context.insert(birds)
        try context.save()
        let fetched = try context.fetch(FetchDescriptor<AnimalCategory>())
        #expect(fetched.map(\.name) == ["Bird"])
        if ObservationTrackingProbe.getter != nil {
            #expect(fetched[0].persistentBackingData.observation == nil)
        }
        let changes = Mutex(0)
        withObservationTracking {
            _ = fetched[0].name
        } onChange: {
            changes.withLock { $0 += 1 }
        }
        #expect(fetched[0].persistentBackingData.observation != nil)
        fetched[0].name = "Birds"
        #expect(changes.withLock { $0 } == 1)
        // The dynamic API tells it too.
        withObservationTracking {
            _ = fetched[0].name
        } onChange: {
            changes.withLock { $0 += 1 }
        }
        try context.setValue(.string("Avians"), for: "name", of: fetched[0].persistentModelID)
        #expect(changes.withLock { $0 } == 2)
    }

    @Test func `the getter is proven even when the first typed read is itself under tracking`() throws {
        #if os(Linux)
        var proven = false
        withObservationTracking {
            if let getter = ObservationTrackingProbe.locate() { proven = ObservationTrackingProbe.prove(getter) }
        } onChange: {
        }
        #expect(proven)
        #endif
    }

    @Test func `an address in no mapped file names none, and one in a library names its file`() throws {
        #if os(Linux)
        #expect(ObservationTrackingProbe.mappedFile(containing: 0) == nil)
        // The heap and the stack are mapped, but from no file.
        let heap = UnsafeMutableRawPointer.allocate(byteCount: 64, alignment: 16)
        defer { heap.deallocate() }
        #expect(ObservationTrackingProbe.mappedFile(containing: UInt(bitPattern: heap)) == nil)
        var local = 0
        let stack = withUnsafeMutablePointer(to: &local) { UInt(bitPattern: $0) }
        #expect(ObservationTrackingProbe.mappedFile(containing: stack) == nil)
        let path = try #require(ObservationTrackingProbe.mappedFile(containing: UInt(bitPattern: try #require(dlsym(nil, "malloc")))))
        #expect(path.hasPrefix("/") && path.contains("libc"))
        #endif
    }

    @Test func `a symbol table that is not one finds nothing`() throws {
        #expect(ELFSymbols(Data()).value(of: "main") == nil)
        #expect(ELFSymbols(Data([0x7F, 0x45, 0x4C, 0x46, 2, 1] + [UInt8](repeating: 0xFF, count: 200))).value(of: "main") == nil)
        #if os(Linux)
        let path = try #require(
            ObservationTrackingProbe.mappedFile(
                containing: UInt(bitPattern: try #require(dlsym(nil, "$s11Observation0A9RegistrarVACycfC")))))
        let image = try #require(FileManager.default.contents(atPath: path))
        #expect(ELFSymbols(image).value(of: "_swift_observation_tls_get") != nil)
        // The code the file holds for an exported function is the code loaded;
        // another function's is not.
        let exported = try #require(dlsym(nil, "$s11Observation0A9RegistrarVACycfC"))
        let function = try #require(ELFSymbols(image).function(named: "$s11Observation0A9RegistrarVACycfC"))
        #expect(ObservationTrackingProbe.matches(function.code, at: UnsafeRawPointer(exported)))
        let other = try #require(ELFSymbols(image).function(named: "_swift_observation_tls_get"))
        #expect(!ObservationTrackingProbe.matches(other.code, at: UnsafeRawPointer(exported)))
        // Cut anywhere, it reads no further than it has.
        for length in stride(from: 0, to: image.count, by: max(1, image.count / 97)) {
            _ = ELFSymbols(image.prefix(length)).value(of: "_swift_observation_tls_get")
        }
        #endif
    }

    @Test func `a getter that does not read the thread-local is refused, under tracking or not`() throws {
        // Proven under tracking, the getter is compared with the outer tracking's
        // pointer rather than nil: a constant must still be refused there.
        let none: ObservationTrackingProbe.ThreadLocalGetter = { nil }
        let constant: ObservationTrackingProbe.ThreadLocalGetter = { UnsafeMutableRawPointer(bitPattern: 0x1000) }
        #expect(!ObservationTrackingProbe.prove(none))
        #expect(!ObservationTrackingProbe.prove(constant))
        var refused: [Bool] = []
        withObservationTracking {
            refused = [ObservationTrackingProbe.prove(none), ObservationTrackingProbe.prove(constant)]
        } onChange: {
        }
        #expect(refused == [false, false])
    }

    @Test func `a symbol table with bytes of its headers changed finds nothing or a value, reading no further than it has`() async throws {
        #if os(Linux)
        let path = try #require(
            ObservationTrackingProbe.mappedFile(
                containing: UInt(bitPattern: try #require(dlsym(nil, "$s11Observation0A9RegistrarVACycfC")))))
        let image = try #require(FileManager.default.contents(atPath: path))
        let sections = Int(image[40..<48].withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) })
        let sectionBytes = Int(image[60..<62].withUnsafeBytes { $0.loadUnaligned(as: UInt16.self) }) * 64
        // Each edit: where (the file header, the section headers, anywhere) and the byte written.
        await checkProperty(count: 200, input: Gen.int(in: 0...Int(UInt32.max)).array(of: 1...6), Gen.int(in: 0...Int.max)) { edits, cut in
            var copy = image
            for edit in edits {
                let at =
                    switch edit % 3 {
                    case 0: (edit >> 2) % 64
                    case 1: sections + (edit >> 2) % max(1, sectionBytes)
                    default: (edit >> 2) % copy.count
                    }
                let byte: UInt8 = [0, 0xFF, 0x7F, 0x80, UInt8(truncatingIfNeeded: edit >> 24)][(edit >> 8) % 5]
                if at < copy.count { copy[at] = byte }
            }
            _ = ELFSymbols(copy).value(of: "_swift_observation_tls_get")
            _ = ELFSymbols(copy).value(of: "")
            _ = ELFSymbols(copy.prefix(cut % (copy.count + 1))).value(of: "$s11Observation0A9RegistrarVACycfC")
        }
        #endif
    }
}
