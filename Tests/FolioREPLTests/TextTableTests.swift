import Folio
import Foundation
import PropertyBased
import Testing
@testable import FolioREPL
import FolioTestSupport

/// Tables line up on a terminal whatever script their cells are in, and no two values print alike.
@Suite struct TextTableTests {
    /// Cells of every width class: ASCII, CJK, kana, Hangul, emoji, ZWJ sequences, flags, combining marks, fullwidth.
    static let pool = ["a", "Max", "日本語", "犬", "ｱｲｳ", "한국어", "🐕", "👨‍👩‍👧", "🇯🇵", "e\u{301}", "❤️", "Ｆｕｌｌ", "x🦘y", ""]

    /// The cell offset at which each non-space run of `line` starts (cells hold no spaces here).
    static func starts(_ line: String) -> [Int] {
        var offsets: [Int] = []
        var cells = 0
        var previous: Character = " "
        for character in line {
            if character != " ", previous == " " { offsets.append(cells) }
            cells += TerminalText.cellWidth(character)
            previous = character
        }
        return offsets
    }

    @Test("columns start at the same terminal cell on every line, for random rows of wide, narrow and zero-width text")
    func alignment() async {
        // Cells by index into the pool (all but its empty string, so every column shows on every
        // line): a failure shrinks to the fewest columns and rows, each cell toward "a".
        let row = Gen.int(in: 0...(Self.pool.count - 2)).array(of: 4)
        await checkProperty(count: 60, input: Gen.int(in: 1...4), row.array(of: 1...6)) { columns, rows in
            var table = TextTable(headers: (0..<columns).map { "c\($0)" }, rightAligned: Array(repeating: false, count: columns))
            for cells in rows {
                table.rows.append(cells.prefix(columns).map { Self.pool[$0] })
            }
            let lines = table.lines()
            let header = Self.starts(lines[0])
            #expect(header.count == columns)
            for line in lines.dropFirst(2) {
                #expect(Self.starts(line) == header, "\(lines.joined(separator: "\n"))")
            }
            // The rule under each header is as wide as its column, in cells.
            #expect(Self.starts(lines[1]) == header)
        }
    }

    @Test("right-aligned columns end at the same cell; trailing spaces are trimmed")
    func rightAlignment() {
        let table = TextTable(
            headers: ["id", "name", "n"], rightAligned: [true, false, true],
            rows: [["1", "日本", "5"], ["22", "a", "12"], ["3", "🐕🐕🐕", "7"]])
        let lines = table.lines()
        #expect(lines == ["id  name     n", "--  ------  --", " 1  日本     5", "22  a       12", " 3  🐕🐕🐕   7"])
        #expect(Set(lines.dropFirst().map { TerminalText.cellWidth($0) }) == [14])
    }

    @Test("a long cell is cut by cells with …, never through a wide character")
    func truncation() {
        #expect(TextTable.cell(String(repeating: "日", count: 30), limit: 10) == "日日日日…")
        #expect(TerminalText.cellWidth(TextTable.cell(String(repeating: "日", count: 30), limit: 10)) == 9)
        #expect(TextTable.cell(String(repeating: "a", count: 30), limit: 10) == "aaaaaaaaa…")
        #expect(TextTable.cell("abc", limit: 3) == "abc")
        #expect(TextTable.cell("e\u{301}e\u{301}e\u{301}e\u{301}", limit: 3) == "e\u{301}e\u{301}…")
    }

    @Test("string cells escape backslash, quote and control characters, and quote what would read as another value")
    func stringCells() {
        #expect(TextTable.stringCell("Rex") == "Rex")
        #expect(TextTable.stringCell("a\\nb") == #"a\\nb"#)
        #expect(TextTable.stringCell("a\nb") == #"a\nb"#)
        #expect(TextTable.stringCell("tab\there") == #"tab\there"#)
        #expect(TextTable.stringCell(#"say "hi""#) == #"say \"hi\""#)
        #expect(TextTable.stringCell("\u{1B}[2J") == #"\u001b[2J"#)
        #expect(TextTable.stringCell("") == #""""#)
        #expect(TextTable.stringCell("null") == #""null""#)
        #expect(TextTable.stringCell(" padded ") == #"" padded ""#)
        #expect(TextTable.stringCell("3", quoted: true) == #""3""#)
        #expect(TextTable.stringCell("日本") == "日本")
    }

    @Test("list tells apart values that printed alike: a backslash-n and a line break, \"null\" and null, \"3\" and 3")
    func listTellsValuesApart() throws {
        let session = try Session("Dogs")
        try session.run(#"set 11 name="a\\nb" companion="3""#)
        try session.run(#"set 12 name="a\nb" companion=3"#)
        try session.run(#"set 13 name="null" companion=null"#)
        try session.run(#"set 14 name="" companion="say \"hi\"""#)
        let rows = try session.run("list Dog limit 4").split(separator: "\n").map(String.init)
        func cells(_ row: String) -> [String] { row.split(separator: " ", omittingEmptySubsequences: true).map(String.init) }
        #expect(cells(rows[2]).prefix(2) == ["11", #"a\\nb"#])
        #expect(cells(rows[3]).prefix(2) == ["12", #"a\nb"#])
        #expect(cells(rows[4]).prefix(2) == ["13", #""null""#])
        #expect(cells(rows[5]).prefix(2) == ["14", #""""#])
        #expect(rows[2].contains(#"  "3"  "#))
        #expect(rows[3].contains("  3  "))
        #expect(rows[4].contains("  null  "))
        #expect(rows[5].contains(#""say \"hi\"""#))
    }

    @Test("a document holding CJK and emoji values lists with every column at the same cell on every line")
    func listAlignsWideValues() throws {
        let session = try Session("Dogs")
        try session.run(#"set 11 name="日本語の犬" color="茶色""#)
        try session.run(#"set 12 name="🐕🐕" color="👨‍👩‍👧""#)
        try session.run("set 13 name=\"Rex\u{301}\" color=\"한국\"")
        let lines = try session.run("list Dog").split(separator: "\n").map(String.init).dropLast()  // "7 Dog"
        /// The character that starts at each cell of a line.
        func byCell(_ line: String) -> [Int: Character] {
            var cells: [Int: Character] = [:]
            var offset = 0
            for character in line {
                cells[offset] = character
                offset += TerminalText.cellWidth(character)
            }
            return cells
        }
        let header = lines[lines.startIndex]
        let ageEnd = TerminalText.cellWidth(String(header[..<header.range(of: "age")!.upperBound]))
        let colorStart = TerminalText.cellWidth(String(header[..<header.range(of: "color")!.lowerBound]))
        for line in lines.dropFirst(2) {
            let cells = byCell(line)
            // age is right-aligned: its last digit sits under the header's "e"; color starts under its "c".
            #expect(cells[ageEnd - 1]?.isNumber == true, "\(line)")
            #expect(cells[ageEnd] == " ", "\(line)")
            #expect(cells[colorStart - 1] == " " && cells[colorStart].map { $0 != " " } == true, "\(line)")
        }
        #expect(lines.contains { $0.contains("日本語の犬") } && lines.contains { $0.contains("👨‍👩‍👧") })
    }
}
