#import "Counter.h"

@implementation Counter

- (instancetype)initWithStart:(NSInteger)start {
    self = [super init];
    if (self) {
        _value = start;
    }
    return self;
}

- (void)increment {
    _value += 1;
}

- (NSInteger)valueAfter:(NSInteger)steps {
    NSInteger result = _value;
    for (NSInteger i = 0; i < steps; i++) {
        result += 1;
    }
    return result;
}

+ (instancetype)counter {
    return [[self alloc] initWithStart:0];
}

@end

static NSInteger clamp(NSInteger value, NSInteger low, NSInteger high) {
    if (value < low) return low;
    if (value > high) return high;
    return value;
}
