(ns demo.stats
  (:require [clojure.string :as str]))

(def default-precision 2)

(defn mean
  "Arithmetic mean of a collection."
  [xs]
  (/ (reduce + xs) (count xs)))

(defn variance
  [xs]
  (let [m (mean xs)]
    (mean (map #(* (- % m) (- % m)) xs))))

(defn- round-to [precision x]
  (let [factor (Math/pow 10 precision)]
    (/ (Math/round (* x factor)) factor)))

(defmacro with-precision [p & body]
  `(binding [*precision* ~p] ~@body))
