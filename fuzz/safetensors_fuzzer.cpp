// Fuzz target: arbitrary bytes as a .safetensors image (corrupt headers, wrong sizes, truncated files). Parsing
// must either fail with a Status or yield tensors whose byte ranges lie inside the input.
#include <cstdint>
#include <cstdlib>

#include "lorekeeper/embed/safetensors.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto st = lorekeeper::embed::SafeTensors::parse(data, size);
  if (!st) return 0;
  for (const char* name : {"a", "b", "weight", "embeddings.word_embeddings.weight"}) {
    const auto* t = (*st)->find(name);
    if (t == nullptr) continue;
    if (t->data < data || t->data + t->bytes > data + size) std::abort();
    volatile unsigned char sink = 0;
    for (size_t i = 0; i < t->bytes; ++i) sink = sink ^ t->data[i];  // touch every byte: ASan checks the range
  }
  return 0;
}
