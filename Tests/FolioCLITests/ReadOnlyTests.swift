import Foundation
import Testing
import FolioTestSupport

/// `folio --read-only PATH`: opens a package without its write lock, so it
/// opens even while another process writes it; reads work, edits and save are
/// refused with a clear message (issue 13, item 4).
@Suite struct ReadOnlyTests {
    /// A `folio` process editing `package`, holding its write lock until `finish()`.
    final class Holder {
        let process: Process
        let input = Pipe()
        let output = Pipe()

        /// Starts `folio PATH` in script mode and waits until it has opened the package.
        init(_ package: URL, in directory: URL) throws {
            process = programProcess(folioBinary, [package.path], in: directory)
            process.standardInput = input
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            try process.run()
            // It answers a command only once the package is open, and so locked.
            input.fileHandleForWriting.write(Data("count Animal\n".utf8))
            var answer = Data()
            while !answer.contains(UInt8(ascii: "\n")) {
                let chunk = output.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                answer += chunk
            }
            #expect(String(decoding: answer, as: UTF8.self) == "30\n")
        }

        /// Ends the session without saving.
        func finish() {
            input.fileHandleForWriting.write(Data("quit!\n".utf8))
            try? input.fileHandleForWriting.close()
            process.waitUntilExit()
        }
    }

    @Test("folio --read-only opens and reads while another folio process has the package open for writing; a second writer is refused")
    func readsWhileAnotherProcessWrites() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let animals = try folder.copySample("Animals.folio")
        let holder = try Holder(animals, in: folder.url)
        defer { holder.finish() }

        let writer = try runFolio([animals.path], input: "count Animal\n", in: folder.url)
        #expect(writer.status == 1)
        #expect(writer.stderr.contains("open for writing elsewhere"), "\(writer.stderr)")

        let reader = try runFolio(["--read-only", animals.path], input: "count Animal\ncount AnimalCategory\n", in: folder.url)
        #expect(reader.status == 0, "\(reader.stderr)")
        #expect(reader.lines == ["30", "6"])
        let explicit = try runFolio(["open", animals.path, "--read-only"], input: "count Animal\n", in: folder.url)
        #expect(explicit.lines == ["30"], "\(explicit.stderr)")
    }

    @Test("folio --read-only refuses every edit and save with a message saying the document is read-only, and writes nothing")
    func refusesEdits() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let animals = try folder.copySample("Animals.folio")
        let before = try documentText(animals)
        for command in [
            "insert AnimalCategory name=Cryptid", "set Animal 2 name=Salamander", "delete Animal 2",
            "unlink AnimalCategory 1 animals 2", "save",
        ] {
            let run = try runFolio(["--read-only", "--yes", animals.path], input: "count Animal\n\(command)\n", in: folder.url)
            #expect(run.status == 1, "\(command)")
            #expect(run.lines == ["30"])
            #expect(run.stderr.hasPrefix("error: 2: "), "\(command): \(run.stderr)")
            #expect(run.stderr.contains("Animals.folio is open read-only"), "\(command): \(run.stderr)")
        }
        #expect(try documentText(animals) == before)

        // save as writes a copy, which is then edited normally.
        let copy = folder.url.appendingPathComponent("Copy.folio")
        let run = try runFolio(
            ["--read-only", animals.path],
            input: "save as \(copy.path)\ninsert AnimalCategory name=Cryptid\nsave\n", in: folder.url)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try documentText(copy).contains("Cryptid"))
        #expect(try documentText(animals) == before)
    }

    @Test("--help documents --read-only")
    func helpMentionsReadOnly() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let run = try runFolio(["--help"], in: folder.url)
        #expect(run.stdout.contains("--read-only"))
    }
}
