package dev.aorta.workloads.spi;

/** Stream roles for the convoy measurement: kernels of {@code waiting} held up behind {@code blocking}. */
public record ConvoyRoles(String waiting, String blocking) {
}
