package dev.aorta.workloads.session;

import java.util.Arrays;
import java.util.Base64;

/**
 * The opaque id that names one communicator (NCCL's 128-byte unique id): rank 0 makes it with
 * {@link GpuSession#newCommunicatorId()} and every other rank needs a byte-exact copy.
 */
public record CommunicatorId(byte[] bytes) {
    public CommunicatorId {
        if (bytes.length == 0) {
            throw new IllegalArgumentException("a communicator id cannot be empty");
        }
        bytes = bytes.clone();
    }

    @Override
    public byte[] bytes() {
        return bytes.clone();
    }

    public String toBase64() {
        return Base64.getEncoder().encodeToString(bytes);
    }

    public static CommunicatorId fromBase64(String text) {
        return new CommunicatorId(Base64.getDecoder().decode(text.trim()));
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof CommunicatorId other && Arrays.equals(bytes, other.bytes);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(bytes);
    }

    @Override
    public String toString() {
        return "CommunicatorId[" + bytes.length + " bytes]";
    }
}
