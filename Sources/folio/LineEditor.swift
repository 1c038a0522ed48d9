@preconcurrency import CLibEdit
import FolioREPL
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Line editing for the terminal session, through libedit's readline
/// interface: prompts, a size-capped history file written with mode 0600,
/// tab completion and Ctrl-C.
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
    }

    /// How many lines the history keeps, in memory and on disk.
    static let historyLimit: Int32 = 1000

    /// Completion candidates for the line up to the cursor; nil turns completion off.
    nonisolated(unsafe) static var completer: ((String) -> [String])?

    /// Where the history is kept, once ``start(historyPath:)`` has run.
    nonisolated(unsafe) private static var historyPath: String?
    nonisolated(unsafe) private static var lastHistoryLine: String?

    /// Sets up libedit, the SIGINT handler, completion, and loads the history.
    static func start(historyPath: String?) {
        useUTF8Locale()
        installInterruptHandler()
        rl_readline_name = UnsafePointer(strdup("folio"))  // for "folio:" lines in ~/.editrc
        // Words are separated by spaces only, as the interpreter splits them, so
        // the word libedit replaces is the one the candidates complete.
        rl_basic_word_break_characters = UnsafePointer(strdup(" \t\n"))
        rl_completion_append_character = 0x20
        rl_attempted_completion_function = complete
        rl_getc_function = readCharacter  // before libedit initializes: it installs it then
        using_history()
        stifle_history(historyLimit)
        self.historyPath = historyPath
        if let historyPath { _ = read_history(historyPath) }
    }

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

    /// Reads one line, showing `prompt`.
    static func readLine(prompt: String) -> Input {
        resetInterrupt()
        guard let pointer = readline(prompt) else {
            if takeInterrupt() { return .interrupted }
            return inputClosed ? .hungUp : .endOfInput
        }
        defer { free(pointer) }
        return .line(String(cString: pointer))
    }

    /// Adds a line to the history, without trailing spaces (completion adds
    /// one), unless it is blank or repeats the last one.
    static func addToHistory(_ line: String) {
        var line = line
        while line.last?.isWhitespace == true { line.removeLast() }
        guard !line.allSatisfy(\.isWhitespace), line != lastHistoryLine else { return }
        lastHistoryLine = line
        _ = add_history(line)
    }

    /// Writes the whole history file, readable by its owner only.
    static func saveHistory() {
        guard let historyPath else { return }
        // Create the file private before libedit writes into it, then make sure
        // an existing file is private too.
        let descriptor = open(historyPath, O_WRONLY | O_CREAT, 0o600)
        if descriptor >= 0 { close(descriptor) }
        _ = write_history(historyPath)
        _ = chmod(historyPath, 0o600)
    }

    /// libedit's attempted-completion callback: `text` is the word before the
    /// cursor. Returns a malloc'ed, NULL-terminated array of strdup'ed strings
    /// that libedit frees: the text to put in place of `text` (the candidates'
    /// common prefix), then every candidate.
    private static let complete: @convention(c) (UnsafePointer<CChar>?, Int32, Int32)
        -> UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = { text, _, _ in
        rl_attempted_completion_over = 1  // never fall back to file names
        guard let completer = LineEditor.completer else { return nil }
        let word = text.map { String(cString: $0) } ?? ""
        let candidates = completer(LineEditor.lineBeforeCursor())
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

    /// The line from its start to the cursor. libedit keeps `rl_line_buffer`
    /// NUL-terminated (UTF-8) but counts `rl_point` in wide characters, that
    /// is Unicode scalars.
    private static func lineBeforeCursor() -> String {
        guard let buffer = rl_line_buffer else { return "" }
        let line = String(cString: buffer)
        let point = Int(max(rl_point, 0))
        var scalars = String.UnicodeScalarView()
        scalars.append(contentsOf: line.unicodeScalars.prefix(point))
        return String(scalars)
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
