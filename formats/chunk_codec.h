// The payload of a chunk (formats/FORMAT.md, "Chunk block"): its encoder,
// ChunkBuilder (formats/chunk_builder.h), which the writer fills between
// flushes, and its decoder, ChunkDecoder (formats/chunk_decoder.h), which
// streams the records of a decompressed payload back out in time order.
#pragma once

#include "formats/chunk_builder.h"
#include "formats/chunk_decoder.h"
#include "formats/chunk_layout.h"
