package dev.aorta.analyzer.metrics;

/** Which windows to measure: the whole trace, each iteration, or each user range. */
public enum WindowMode { WHOLE, STEPS, RANGES }
