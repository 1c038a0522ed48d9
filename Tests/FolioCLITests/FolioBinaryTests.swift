import Foundation
import Testing

/// The built `folio` executable: beside the test bundle in the build folder.
let folioBinary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    .appendingPathComponent("folio")

@Suite struct FolioBinaryTests {
    @Test("piping help into folio prints the commands and exits 0")
    func pipedHelp() throws {
        let process = Process()
        process.executableURL = folioBinary
        let sample = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("SampleDocuments/Animals.folio")
        process.arguments = [sample.path]
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        input.fileHandleForWriting.write(Data("help\n".utf8))
        try input.fileHandleForWriting.close()
        process.waitUntilExit()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(process.terminationStatus == 0)
        #expect(text.contains("commands:"))
    }
}
