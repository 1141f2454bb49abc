package dev.aorta.gpu.nccl;

import java.util.Arrays;
import java.util.Base64;

/** The 128-byte id that names one NCCL communicator; rank 0 makes it and every rank needs a copy. */
public record NcclUniqueId(byte[] bytes) {
    public static final int SIZE = 128;

    public NcclUniqueId {
        if (bytes.length != SIZE) {
            throw new IllegalArgumentException("an NCCL unique id has " + SIZE + " bytes, not " + bytes.length);
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

    public static NcclUniqueId fromBase64(String s) {
        return new NcclUniqueId(Base64.getDecoder().decode(s));
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof NcclUniqueId other && Arrays.equals(bytes, other.bytes);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(bytes);
    }
}
