import FolioREPL
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Line editing for the terminal session, through libedit's readline
/// interface (``LibEdit``, opened at run time): prompts, a size-capped history
/// file written with mode 0600, tab completion and Ctrl-C. Without libedit,
/// lines are read plainly (the terminal's own editing, no history or
/// completion), and the session says so once.
///
/// libedit is process-wide state, and its C callbacks cannot capture, so the
/// editor is a namespace over globals: ``completer`` is what the completion
/// callback asks; the SIGINT handler and the character reader share the state
/// in `LineEditor+Input.swift`.
enum LineEditor {
    /// What one read from the terminal gave.
    enum Input: Equatable {
        /// A line (without its newline).
        case line(String)
        /// Ctrl-C: the partial line is discarded.
        case interrupted
        /// Ctrl-D on an empty line.
        case endOfInput
        /// The terminal went away.
        case hungUp
        /// A line longer than ``Interpreter/maximumLineLength``: reading
        /// stopped at the limit and the rest of the line was discarded.
        case tooLong
    }

    /// How many lines the history keeps, in memory and on disk.
    static let historyLimit: Int32 = 1000

    /// Completion candidates for the line up to the cursor; nil turns completion off.
    nonisolated(unsafe) static var completer: ((String) -> [String])?

    /// Where the history is kept, once ``start(historyPath:)`` has run.
    nonisolated(unsafe) private static var historyPath: String?
    nonisolated(unsafe) private static var lastHistoryLine: String?

    /// libedit, once ``start(historyPath:)`` has opened it; nil before, or
    /// when it is missing (lines are then read plainly).
    nonisolated(unsafe) static var libedit: LibEdit?

    /// Sets up libedit (or says once that it is missing), the SIGINT handler,
    /// completion, and loads the history.
    static func start(historyPath: String?) {
        useUTF8Locale()
        installInterruptHandler()
        switch LibEdit.load(environment: ProcessInfo.processInfo.environment) {
        case .failure(let failure):
            Output.diagnostic(
                "note", kind: "lineEditing",
                "no line editing, history or completion: \(failure.reason) (Debian: apt-get install libedit2)")
            return
        case .success(let edit):
            libedit = edit
            edit.readlineName.pointee = UnsafePointer(strdup("folio"))  // for "folio:" lines in ~/.editrc
            // Words are separated by spaces only, as the interpreter splits them, so
            // the word libedit replaces is the one the candidates complete.
            edit.basicWordBreakCharacters.pointee = UnsafePointer(strdup(" \t\n"))
            edit.completionAppendCharacter.pointee = 0x20
            edit.attemptedCompletionFunction.pointee = complete
            edit.getCharacterFunction.pointee = readCharacter  // before libedit initializes: it installs it then
            edit.usingHistory()  // initializes libedit
            protectLineBuffer()
            edit.stifleHistory(historyLimit)
            self.historyPath = historyPath
            if let historyPath { _ = edit.readHistory(historyPath) }
        }
    }

    /// Works around a libedit (3.1-20221030) use-after-free that a long line
    /// and Tab trigger: folio crashed on a pasted line of tab-separated values.
    /// `rl_line_buffer` points into libedit's UTF-8 conversion buffer, and
    /// libedit re-points it only when it enlarges the line buffer; Tab converts
    /// the whole line again, and once the line has outgrown the conversion
    /// buffer, `realloc` moves it and libedit writes a NUL through the stale
    /// pointer. So folio never reads `rl_line_buffer` (completion asks
    /// `rl_copy_text`) and, before libedit handles each key, points it at a
    /// buffer of its own, long enough for any line folio reads (a typed line
    /// stops at ``Interpreter/maximumLineLength``, a history line at
    /// ``historyLineLimit``), where libedit's write does no harm.
    static func protectLineBuffer() {
        libedit?.lineBuffer.pointee = lineBufferStandIn
    }

    /// What `rl_line_buffer` points at: zeroed, as long as the longest line.
    nonisolated(unsafe) private static let lineBufferStandIn: UnsafeMutablePointer<CChar> = {
        let count = Interpreter.maximumLineLength + historyLineLimit + 64
        let memory = UnsafeMutablePointer<CChar>.allocate(capacity: count)
        memory.initialize(repeating: 0, count: count)
        return memory
    }()

    /// libedit edits wide characters and converts them with the C library's
    /// locale, which is "C" (ASCII) until a program asks: take the user's
    /// locale, or C.UTF-8 when that is not UTF-8, so `Zoë` can be typed.
    private static func useUTF8Locale() {
        func isUTF8() -> Bool {
            guard let codeset = nl_langinfo(nl_item(CODESET)) else { return false }
            let name = String(cString: codeset).uppercased()
            return name == "UTF-8" || name == "UTF8"
        }
        if setlocale(LC_CTYPE, "") != nil, isUTF8() { return }
        if setlocale(LC_CTYPE, "C.UTF-8") != nil, isUTF8() { return }
        _ = setlocale(LC_CTYPE, "C")
    }

    /// Reads one line, showing `prompt`. A line over
    /// ``Interpreter/maximumLineLength`` is read no further than the limit: the
    /// rest of it is discarded and the answer is ``Input/tooLong``.
    static func readLine(prompt: String) -> Input {
        resetInterrupt()
        guard let libedit else { return readPlainLine(prompt: prompt) }
        startLine()
        protectLineBuffer()
        guard let pointer = libedit.readline(prompt) else {
            _ = takePastedLine()
            if takeInterrupt() { return .interrupted }
            return inputClosed ? .hungUp : .endOfInput
        }
        defer { free(pointer) }
        let pasted = takePastedLine()
        if lineWasTooLong { return .tooLong }
        return .line(pasted ?? String(cString: pointer))
    }

    /// The longest line the history keeps, in bytes: longer lines (pasted
    /// data) would make the history file, read at every start, huge.
    static let historyLineLimit = 1 << 16

    /// Adds a line to the history, without trailing spaces (completion adds
    /// one), unless it is blank, repeats the last one, or is longer than
    /// ``historyLineLimit``.
    static func addToHistory(_ line: String) {
        guard line.utf8.count <= historyLineLimit else { return }
        var line = line
        while line.last?.isWhitespace == true { line.removeLast() }
        guard !line.allSatisfy(\.isWhitespace), line != lastHistoryLine else { return }
        lastHistoryLine = line
        _ = libedit?.addHistory(line)
    }

    /// Writes the whole history file, readable by its owner only.
    static func saveHistory() {
        guard let historyPath, let libedit else { return }
        // Create the file private before libedit writes into it, then make sure
        // an existing file is private too.
        let descriptor = open(historyPath, O_WRONLY | O_CREAT, 0o600)
        if descriptor >= 0 { close(descriptor) }
        _ = libedit.writeHistory(historyPath)
        _ = chmod(historyPath, 0o600)
    }

    /// libedit's attempted-completion callback: `text` is the word before the
    /// cursor, `start` where it starts (in characters). Returns a malloc'ed,
    /// NULL-terminated array of strdup'ed strings that libedit frees: the text
    /// to put in place of `text` (the candidates' common prefix), then every
    /// candidate.
    private static let complete:
        @convention(c) (UnsafePointer<CChar>?, Int32, Int32)
            -> UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = { text, start, _ in
                LineEditor.libedit?.attemptedCompletionOver.pointee = 1  // never fall back to file names
                // Far into a long line (pasted data with tabs) there is nothing to
                // complete, and reading the line at every tab would be quadratic.
                guard let completer = LineEditor.completer, start >= 0, start <= LineEditor.completionLimit else { return nil }
                let word = text.map { String(cString: $0) } ?? ""
                let candidates = completer(LineEditor.lineBeforeCursor(wordStart: Int(start), word: word))
                guard !candidates.isEmpty else { return nil }
                var replacement = commonPrefix(candidates)
                if !replacement.hasPrefix(word) { replacement = word }  // never erase what was typed
                // The candidates after the first are only listed (on a second Tab), and libedit sorts that list as text.
                let strings = [replacement] + (candidates.count > 1 ? Interpreter.completionListing(candidates) : candidates)
                // libedit frees the array and each string with free(): malloc and strdup them.
                let count = strings.count + 1
                guard let memory = malloc(MemoryLayout<UnsafeMutablePointer<CChar>?>.stride * count) else { return nil }
                let array = memory.bindMemory(to: UnsafeMutablePointer<CChar>?.self, capacity: count)
                for (index, string) in strings.enumerated() { array[index] = strdup(string) }
                array[strings.count] = nil
                return array
            }

    /// How far into a line, in characters (and bytes typed), Tab still completes.
    static let completionLimit: Int32 = 4096

    /// The line from its start to the cursor: its first `wordStart`
    /// characters (Unicode scalars, as libedit counts), then the word being
    /// completed. `rl_copy_text` converts the line afresh (but leaves out its
    /// last byte: a character of the word, or, when the word is empty, the
    /// space before the cursor, put back here).
    private static func lineBeforeCursor(wordStart: Int, word: String) -> String {
        guard let copy = libedit?.copyText(0, Int32.max) else { return word }
        defer { free(copy) }
        var scalars = String.UnicodeScalarView()
        scalars.append(contentsOf: String(cString: copy).unicodeScalars.prefix(wordStart))
        while scalars.count < wordStart { scalars.append(" ") }
        return String(scalars) + word
    }

    private static func commonPrefix(_ strings: [String]) -> String {
        guard var prefix = strings.first.map({ Array($0.utf8) }) else { return "" }
        for string in strings.dropFirst() {
            let bytes = Array(string.utf8)
            var count = 0
            while count < prefix.count, count < bytes.count, prefix[count] == bytes[count] { count += 1 }
            prefix.removeSubrange(count...)
        }
        // Cut back to a whole character if the bytes stopped inside one.
        while !prefix.isEmpty, String(validating: prefix, as: UTF8.self) == nil { prefix.removeLast() }
        return String(decoding: prefix, as: UTF8.self)
    }
}
