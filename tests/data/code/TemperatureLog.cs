using System;
using System.Collections.Generic;
using System.Linq;

namespace Weather.Station
{
    public record Reading(DateTime At, double Celsius);

    /// <summary>Keeps readings and answers simple questions about them.</summary>
    public class TemperatureLog
    {
        private readonly List<Reading> _readings = new();

        public void Add(Reading reading)
        {
            if (double.IsNaN(reading.Celsius))
            {
                throw new ArgumentException("Temperature must be a number", nameof(reading));
            }
            _readings.Add(reading);
        }

        public double Average(DateTime from, DateTime to)
        {
            var inRange = _readings.Where(r => r.At >= from && r.At < to).ToList();
            return inRange.Count == 0 ? double.NaN : inRange.Average(r => r.Celsius);
        }

        public IEnumerable<Reading> Extremes(int count)
        {
            var ordered = _readings.OrderBy(r => r.Celsius).ToList();
            return ordered.Take(count).Concat(ordered.TakeLast(count));
        }

        [Obsolete("Use Average instead")]
        public double Mean()
        {
            return _readings.Average(r => r.Celsius);
        }
    }

    public static class Conversions
    {
        public static double ToFahrenheit(double celsius)
        {
            return celsius * 9 / 5 + 32;
        }
    }
}
