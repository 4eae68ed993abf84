const std = @import("std");
const Allocator = std.mem.Allocator;

/// A growable list of integers.
pub const IntList = struct {
    items: []i64,
    len: usize,
    allocator: Allocator,

    pub fn init(allocator: Allocator) IntList {
        return .{ .items = &[_]i64{}, .len = 0, .allocator = allocator };
    }

    pub fn append(self: *IntList, value: i64) !void {
        if (self.len == self.items.len) {
            const capacity = if (self.items.len == 0) 4 else self.items.len * 2;
            self.items = try self.allocator.realloc(self.items, capacity);
        }
        self.items[self.len] = value;
        self.len += 1;
    }

    pub fn deinit(self: *IntList) void {
        self.allocator.free(self.items);
    }
};

pub fn sum(values: []const i64) i64 {
    var total: i64 = 0;
    for (values) |value| total += value;
    return total;
}

test "append grows the list" {
    var list = IntList.init(std.testing.allocator);
    defer list.deinit();
    try list.append(3);
    try std.testing.expectEqual(@as(usize, 1), list.len);
}
