package dev.aorta.analyzer.metrics;

/** Which windows to measure: the whole trace, each iteration, each user range, or each capture window of the agent. */
public enum WindowMode { WHOLE, STEPS, RANGES, CAPTURES }
