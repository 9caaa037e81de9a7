/// Whole numbers made from numbers someone else wrote (a header, a record, a state file) without
/// trapping: Swift's `Int(_: Double)` and `+`, `-`, `*` stop the process on overflow, so a
/// value past `Int`'s range is clamped to it instead (reliability audit r2 H1, H2).
extension Int {
    /// `value` rounded toward zero, clamped to `Int.min...Int.max`; NaN is 0.
    package init(saturating value: Double) {
        // 2^63 is exactly representable; `Int.max` (2^63 - 1) is not, so compare with 2^63.
        if value.isNaN {
            self = 0
        } else if value >= 9_223_372_036_854_775_808.0 {
            self = .max
        } else if value < -9_223_372_036_854_775_808.0 {
            self = .min
        } else {
            self = Int(value)
        }
    }

    /// `self - other`, clamped to `Int.min...Int.max`.
    package func subtractingSaturated(_ other: Int) -> Int {
        let (result, overflow) = subtractingReportingOverflow(other)
        guard overflow else { return result }
        return other > 0 ? .min : .max
    }

    /// `self * other`, clamped to `Int.min...Int.max`.
    package func multipliedSaturated(by other: Int) -> Int {
        let (result, overflow) = multipliedReportingOverflow(by: other)
        guard overflow else { return result }
        return (self < 0) == (other < 0) ? .max : .min
    }
}
