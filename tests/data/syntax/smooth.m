function y = smooth(x, width)
% SMOOTH  Moving average of a signal.
%   y = smooth(x, width) averages each sample with its neighbours.
    if nargin < 2
        width = 3;
    end
    kernel = ones(1, width) / width;
    y = conv(x, kernel, 'same');
end

function [lo, hi] = bounds(x)
% BOUNDS  Smallest and largest sample.
    lo = min(x);
    hi = max(x);
end
