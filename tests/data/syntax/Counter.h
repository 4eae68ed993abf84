#import <Foundation/Foundation.h>

NS_ASSUME_NONNULL_BEGIN

/// Counts upward from a starting value.
@interface Counter : NSObject

@property (nonatomic, readonly) NSInteger value;

- (instancetype)initWithStart:(NSInteger)start;
- (void)increment;
+ (instancetype)counter;

@end

NS_ASSUME_NONNULL_END
