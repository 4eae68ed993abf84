import Foundation

/// Counts down from a number of seconds.
protocol Ticking {
    func tick() -> Int
}

final class Countdown: Ticking {
    private(set) var remaining: Int

    init(seconds: Int) {
        remaining = seconds
    }

    func tick() -> Int {
        if remaining > 0 {
            remaining -= 1
        }
        return remaining
    }

    func reset(to seconds: Int) {
        remaining = seconds
    }
}

struct Lap {
    let index: Int
    let duration: TimeInterval

    func formatted() -> String {
        String(format: "%d: %.2f s", index, duration)
    }
}

func totalTime(of laps: [Lap]) -> TimeInterval {
    laps.reduce(0) { $0 + $1.duration }
}
