import Foundation

/// Reads a document's bytes just ahead of libxml2 and stops a file that breaks
/// ``DocumentLimits`` before libxml2 sees — and buffers — the offending bytes.
///
/// The loader lifts libxml2's own caps (`XML_PARSE_HUGE`), which refused
/// values over 10 MB that Folio writes, so Folio must bound what libxml2
/// buffers itself. In push mode libxml2 holds a construct whole until it ends:
/// a start tag with all its values, a comment, a declaration. This scanner
/// knows just enough XML to measure those constructs as the chunks go by:
/// each value (between its quotes), the number of values on one element, and
/// the markup between them. It also bounds the work libxml2 does per element:
/// libxml2 2.9 checks an element's attributes for duplicates pairwise, in time
/// quadratic in their number; counting them first refuses such an element
/// after ``DocumentLimits/maximumAttributesPerElement``, before libxml2 has
/// the element.
///
/// For well-formed XML the counts are exact; for anything else libxml2 reports
/// its own error, on the bytes the scanner let through.
///
/// - Complexity: O(bytes); markup and short values are searched a word at a
///   time (``ByteScan``), long values with `memchr`.
struct MarkupScanner {
    /// A limit broken, and where: the byte offset of the construct that broke it.
    struct Violation {
        var limit: DocumentLimits.Limit
        var size: Int
        /// The offset of the `<` that starts the element, comment or declaration.
        var offset: Int
        /// Whether the construct is a declaration (`<!DOCTYPE`…), which the loader refuses anyway.
        var isDeclaration: Bool
        /// The first bytes of a declaration, to name it.
        var declaration: String
    }

    private enum State {
        /// Character data, outside markup.
        case text
        /// Just after `<`.
        case open
        /// Just after `<!`.
        case bang
        /// Just after `<!-`.
        case bangDash
        /// In a start tag, outside values.
        case tag
        /// In a value, until the quote byte.
        case value(UInt8)
        /// In an end tag, until `>`.
        case endTag
        /// In a comment, until `-->`.
        case comment
        /// In a processing instruction, until `?>`.
        case instruction
        /// In a CDATA section, until `]]>`.
        case cdata
        /// In a declaration (`<!DOCTYPE`…), until `>`.
        case declaration
    }

    let limits: DocumentLimits
    private var state = State.text
    /// Bytes scanned before the current chunk.
    private var consumed = 0
    /// Where the current construct (its `<`) starts.
    private var constructStart = 0
    /// Where the current run of markup, or value, starts.
    private var runStart = 0
    private var attributes = 0
    /// The last two bytes, for the terminators `-->`, `?>` and `]]>`.
    private var previous: (UInt8, UInt8) = (0, 0)
    private var declarationHead: [UInt8] = []

    init(limits: DocumentLimits) { self.limits = limits }

    /// The bytes of the value the last chunk ended in, or 0 outside values.
    var openValueLength: Int {
        if case .value = state { return consumed - runStart }
        return 0
    }

    /// Scans the next chunk; returns the first violation in it, after which the
    /// scanner must not be used again.
    mutating func scan(_ chunk: UnsafeBufferPointer<UInt8>) -> Violation? {
        guard let base = chunk.baseAddress else { return nil }
        let count = chunk.count
        var index = 0
        defer { consumed += count }
        while index < count {
            switch state {
            case .text:
                guard let found = memchr(base + index, Int32(UInt8(ascii: "<")), count - index) else { return nil }
                index = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
                constructStart = consumed + index
                state = .open
                index += 1
            case .open:
                switch chunk[index] {
                case UInt8(ascii: "/"): state = .endTag
                case UInt8(ascii: "?"): state = .instruction; previous = (0, 0)
                case UInt8(ascii: "!"): state = .bang
                default:
                    state = .tag
                    attributes = 0
                    runStart = constructStart
                    continue  // the byte is part of the name
                }
                index += 1
            case .bang:
                switch chunk[index] {
                case UInt8(ascii: "-"): state = .bangDash
                case UInt8(ascii: "["): state = .cdata; previous = (0, 0)
                default:
                    state = .declaration
                    declarationHead = Array("<!".utf8)
                    continue
                }
                index += 1
            case .bangDash:
                // `<!-` then `-` opens a comment; anything else is malformed, left to libxml2.
                state = chunk[index] == UInt8(ascii: "-") ? .comment : .declaration
                previous = (0, 0)
                index += 1
            case .tag:
                // Tight loops to the next quote or `>`, then to the closing quote: names
                // and spaces are a third of a document, and going through the state
                // switch per byte cost half as much time as libxml2's whole parse. The
                // loop keeps its counts in locals (`run`: where the current markup run
                // or value starts, in this chunk), stored back when it leaves.
                let markupLimit = limits.maximumMarkupBytes, valueLimit = limits.maximumValueBytes
                let attributeLimit = limits.maximumAttributesPerElement
                var seen = attributes
                var run = runStart - consumed
                defer {
                    attributes = seen
                    runStart = consumed + run
                }
                while true {
                    let budget = markupLimit - (index - run)
                    let end = min(count, index + max(0, budget))
                    let position = ByteScan.firstIndex(
                        ofAny: UInt8(ascii: "\""), UInt8(ascii: "'"), UInt8(ascii: ">"),
                        in: base, from: index, to: end)
                    if position == end {
                        if end < count || budget <= 0 { return violation(.markupBytes, size: end - run + 1) }
                        index = count
                        break
                    }
                    let quote = base[position]
                    if quote == UInt8(ascii: ">") {
                        state = .text
                        index = position + 1
                        break
                    }
                    seen += 1
                    if seen > attributeLimit { return violation(.attributesPerElement, size: seen) }
                    run = position + 1
                    // Most values are short: look at a few words before calling memchr.
                    let shortEnd = min(count, run + 32)
                    var close = ByteScan.firstIndex(of: quote, in: base, from: run, to: shortEnd)
                    if close == shortEnd, close < count {
                        close =
                            memchr(base + close, Int32(quote), count - close)
                            .map { base.distance(to: $0.assumingMemoryBound(to: UInt8.self)) } ?? count
                    }
                    if close - run > valueLimit { return violation(.valueBytes, size: close - run) }
                    if close == count {
                        state = .value(quote)
                        index = count
                        break
                    }
                    index = close + 1
                    run = index
                }
            case .value(let quote):
                let end = memchr(base + index, Int32(quote), count - index)
                let stop = end.map { base.distance(to: $0.assumingMemoryBound(to: UInt8.self)) } ?? count
                let length = consumed + stop - runStart
                if length > limits.maximumValueBytes {
                    return violation(.valueBytes, size: length)
                }
                guard end != nil else { return nil }
                state = .tag
                index = stop + 1
                runStart = consumed + index
            case .endTag, .comment, .instruction, .cdata, .declaration:
                let byte = chunk[index]
                if case .declaration = state, declarationHead.count < 16 { declarationHead.append(byte) }
                let ends: Bool
                switch state {
                case .comment: ends = byte == UInt8(ascii: ">") && previous == (UInt8(ascii: "-"), UInt8(ascii: "-"))
                case .instruction: ends = byte == UInt8(ascii: ">") && previous.1 == UInt8(ascii: "?")
                case .cdata: ends = byte == UInt8(ascii: ">") && previous == (UInt8(ascii: "]"), UInt8(ascii: "]"))
                default: ends = byte == UInt8(ascii: ">")
                }
                previous = (previous.1, byte)
                if ends {
                    state = .text
                } else if consumed + index - constructStart >= limits.maximumMarkupBytes {
                    return violation(.markupBytes, size: consumed + index - constructStart + 1)
                }
                index += 1
            }
        }
        return nil
    }

    /// Whether a whole document, in one buffer, keeps within `limits` by its
    /// spans alone, so that it needs no ``scan(_:)``.
    ///
    /// A span runs from one `<` to the next (or to the end). In well-formed XML a
    /// start tag, an end tag or a processing instruction holds no `<` but its
    /// first (a value must write it `&lt;`), so each lies inside its span: when
    /// every span is shorter than the tightest limit, no markup run or value can
    /// reach its limit, and no element can count as many values (two quotes
    /// each) as its limit. A comment, a CDATA section or a declaration (`<!`) may
    /// hold `<` and run over many spans, and a processing instruction that does
    /// not end in its span may too: for those the answer is false, and the
    /// document is scanned. So for a well-formed document a true answer is
    /// exact: ``scan(_:)`` would find nothing. For a malformed one it still
    /// bounds libxml2's work, which is the scanner's purpose: libxml2 holds no
    /// more than this buffer, and stops with an error at a `<` inside a tag.
    ///
    /// A package's parts, one element per short line, pass; checking one costs a
    /// `memchr` per element instead of a search per value.
    ///
    /// - Complexity: O(bytes), a word at a time.
    static func admits(_ document: UnsafeBufferPointer<UInt8>, within limits: DocumentLimits) -> Bool {
        guard let base = document.baseAddress else { return true }
        let count = document.count
        let bound = min(limits.maximumMarkupBytes, limits.maximumValueBytes, 2 * limits.maximumAttributesPerElement)
        func nextOpen(after index: Int) -> Int {
            guard index + 1 < count, let found = memchr(base + index + 1, Int32(UInt8(ascii: "<")), count - index - 1) else {
                return count
            }
            return base.distance(to: found.assumingMemoryBound(to: UInt8.self))
        }
        var start = count > 0 && base[0] == UInt8(ascii: "<") ? 0 : nextOpen(after: 0)
        while start < count {
            let next = nextOpen(after: start)
            if next - start >= bound { return false }
            if start + 1 < next {
                switch base[start + 1] {
                case UInt8(ascii: "!"):
                    return false
                case UInt8(ascii: "?"):
                    // The instruction must end (`?>`, its `?` not the one after `<`) before the next `<`.
                    var index = start + 3
                    while index < next, !(base[index] == UInt8(ascii: ">") && base[index - 1] == UInt8(ascii: "?")) { index += 1 }
                    if index >= next { return false }
                default:
                    break
                }
            }
            start = next
        }
        return true
    }

    private func violation(_ limit: DocumentLimits.Limit, size: Int) -> Violation {
        var isDeclaration = false
        if case .declaration = state { isDeclaration = true }
        return Violation(
            limit: limit, size: size, offset: constructStart, isDeclaration: isDeclaration,
            declaration: String(decoding: declarationHead, as: UTF8.self))
    }
}
