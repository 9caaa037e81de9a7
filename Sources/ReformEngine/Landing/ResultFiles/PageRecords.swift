import ReformSDK

/// The records of the page a source is handing out, one at a time: held in memory, or read from
/// the page's result file as they are asked for (``RecordFile``). Live and replayed pages go
/// through it alike.
struct PageRecords {
    private var held: [Value] = []
    private var index = 0
    private var reader: RecordFileReader?
    private var page = 0

    /// Starts on page `page`: its `records`, or those of `file` when it has one.
    mutating func start(_ records: [Value], file: RecordFile?, page: Int) throws(SourceError) {
        held = records
        index = 0
        self.page = page
        reader = try file?.reader()
    }

    /// The page's next record, or `nil` when it has no more.
    mutating func next() throws(SourceError) -> Landed? {
        if let reader {
            if let landed = try reader.nextLanded(page: page) { return landed }
            self.reader = nil
            return nil
        }
        guard index < held.count else { return nil }
        defer { index += 1 }
        return .record(held[index], line: 0, page: page)
    }
}
