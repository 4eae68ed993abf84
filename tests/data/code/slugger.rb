# frozen_string_literal: true

require "set"

module Blog
  # Turns titles into unique URL slugs.
  class Slugger
    attr_reader :seen

    def initialize
      @seen = Set.new
    end

    def slug(title)
      base = normalize(title)
      candidate = base
      counter = 1
      while @seen.include?(candidate)
        counter += 1
        candidate = "#{base}-#{counter}"
      end
      @seen << candidate
      candidate
    end

    def reset!
      @seen.clear
    end

    private

    def normalize(title)
      title.downcase.strip.gsub(/[^a-z0-9\s-]/, "").gsub(/\s+/, "-")
    end
  end

  def self.slugify(title)
    Slugger.new.slug(title)
  end
end
