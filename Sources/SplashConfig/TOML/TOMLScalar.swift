/// The grammar of TOML 1.0's unquoted values: booleans, integers, floats, and dates and times
/// (RFC 3339, with impossible dates and times refused).
enum TOMLScalar {
    /// The value `token` writes, or nil when it is not one.
    static func value(of token: ArraySlice<UInt8>) -> TOMLValue? {
        let text = Array(token)
        switch String(decoding: text, as: UTF8.self) {
        case "true": return .bool(true)
        case "false": return .bool(false)
        case "inf", "+inf": return .double(.infinity)
        case "-inf": return .double(-.infinity)
        case "nan", "+nan", "-nan": return .double(.nan)
        default: break
        }
        if text.count >= 10, text[4] == UInt8(ascii: "-") { return dateTime(text) }
        if text.count >= 3, text[2] == UInt8(ascii: ":") {
            var reader = Reader(text)
            guard reader.partialTime(), reader.atEnd else { return nil }
            return .time(String(decoding: text, as: UTF8.self))
        }
        return number(text)
    }

    // MARK: Numbers

    /// `dec-int`, `hex-int`, `oct-int`, `bin-int` or a float: underscores only between digits,
    /// no leading zeros in decimals, a sign only on decimals, and a value that fits 64 bits.
    static func number(_ text: [UInt8]) -> TOMLValue? {
        var reader = Reader(text)
        let signed = reader.take(UInt8(ascii: "+")) || reader.take(UInt8(ascii: "-"))
        if !signed, reader.peek(UInt8(ascii: "0")), reader.index + 1 < text.count {
            let radix: Int? =
                switch text[reader.index + 1] {
                case UInt8(ascii: "x"): 16
                case UInt8(ascii: "o"): 8
                case UInt8(ascii: "b"): 2
                default: nil
                }
            if let radix {
                reader.index += 2
                guard let digits = reader.digits(radix: radix), reader.atEnd,
                    let value = UInt64(String(decoding: digits, as: UTF8.self), radix: radix), value <= UInt64(Int64.max)
                else { return nil }
                return .int(Int(value))
            }
        }
        let integerStart = reader.index
        guard let integer = reader.digits(radix: 10) else { return nil }
        // "0" alone, or no leading zero.
        guard integer.count == 1 || text[integerStart] != UInt8(ascii: "0") else { return nil }
        var isFloat = false
        if reader.take(UInt8(ascii: ".")) {
            guard reader.digits(radix: 10) != nil else { return nil }
            isFloat = true
        }
        if reader.take(UInt8(ascii: "e")) || reader.take(UInt8(ascii: "E")) {
            _ = reader.take(UInt8(ascii: "+")) || reader.take(UInt8(ascii: "-"))
            // The exponent may have leading zeros.
            guard reader.digits(radix: 10) != nil else { return nil }
            isFloat = true
        }
        guard reader.atEnd else { return nil }
        let plain = String(decoding: text.filter { $0 != UInt8(ascii: "_") }, as: UTF8.self)
        if isFloat { return Double(plain).map(TOMLValue.double) }
        return Int(plain).map(TOMLValue.int)
    }

    // MARK: Dates and times

    /// `1979-05-27`, `1979-05-27T07:32:00`, `1979-05-27 07:32:00.999-07:00`: the date checked
    /// against its month and year, the time against the clock (a leap second, :60, allowed as
    /// RFC 3339 does), an offset at most 23:59.
    static func dateTime(_ text: [UInt8]) -> TOMLValue? {
        var reader = Reader(text)
        guard reader.fullDate() else { return nil }
        let string = String(decoding: text, as: UTF8.self)
        if reader.atEnd { return .date(string) }
        guard reader.take(UInt8(ascii: "T")) || reader.take(UInt8(ascii: "t")) || reader.take(0x20),
            reader.partialTime()
        else { return nil }
        if !reader.atEnd {
            if reader.take(UInt8(ascii: "Z")) || reader.take(UInt8(ascii: "z")) {
                // UTC.
            } else {
                guard reader.take(UInt8(ascii: "+")) || reader.take(UInt8(ascii: "-")),
                    let hour = reader.twoDigits(), hour <= 23, reader.take(UInt8(ascii: ":")),
                    let minute = reader.twoDigits(), minute <= 59
                else { return nil }
            }
        }
        guard reader.atEnd else { return nil }
        return .dateTime(string)
    }

    /// Days in `month` (1-12) of `year` (Gregorian, year 0 a leap year as in RFC 3339's rule).
    static func days(inMonth month: Int, year: Int) -> Int {
        switch month {
        case 2: year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// A cursor over a token.
    struct Reader {
        let text: [UInt8]
        var index = 0

        init(_ text: [UInt8]) { self.text = text }

        var atEnd: Bool { index == text.count }

        func peek(_ byte: UInt8) -> Bool { index < text.count && text[index] == byte }

        /// Steps over `byte` if it is next.
        mutating func take(_ byte: UInt8) -> Bool {
            guard peek(byte) else { return false }
            index += 1
            return true
        }

        /// Digits of `radix` with single underscores between them; nil unless at least one digit
        /// comes first and every underscore has a digit on each side.
        mutating func digits(radix: Int) -> ArraySlice<UInt8>? {
            let start = index
            var lastWasDigit = false
            while index < text.count {
                let byte = text[index]
                if Self.digitValue(byte).map({ $0 < radix }) ?? false {
                    lastWasDigit = true
                } else if byte == UInt8(ascii: "_") && lastWasDigit {
                    lastWasDigit = false
                } else {
                    break
                }
                index += 1
            }
            guard index > start, lastWasDigit else { return nil }
            return text[start..<index].filter { $0 != UInt8(ascii: "_") }[...]
        }

        /// Exactly `count` decimal digits, as a number.
        mutating func fixedDigits(_ count: Int) -> Int? {
            guard index + count <= text.count else { return nil }
            var value = 0
            for byte in text[index..<index + count] {
                guard byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            index += count
            return value
        }

        mutating func twoDigits() -> Int? { fixedDigits(2) }

        /// `YYYY-MM-DD`, a day that exists.
        mutating func fullDate() -> Bool {
            guard let year = fixedDigits(4), take(UInt8(ascii: "-")),
                let month = twoDigits(), (1...12).contains(month), take(UInt8(ascii: "-")),
                let day = twoDigits(), day >= 1, day <= TOMLScalar.days(inMonth: month, year: year)
            else { return false }
            return true
        }

        /// `HH:MM:SS` with an optional fraction.
        mutating func partialTime() -> Bool {
            guard let hour = twoDigits(), hour <= 23, take(UInt8(ascii: ":")),
                let minute = twoDigits(), minute <= 59, take(UInt8(ascii: ":")),
                let second = twoDigits(), second <= 60
            else { return false }
            if take(UInt8(ascii: ".")) {
                let start = index
                while index < text.count, text[index] >= UInt8(ascii: "0"), text[index] <= UInt8(ascii: "9") { index += 1 }
                guard index > start else { return false }
            }
            return true
        }

        static func digitValue(_ byte: UInt8) -> Int? {
            TOMLParser.hexValue(byte).map(Int.init)
        }
    }
}
