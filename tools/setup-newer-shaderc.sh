#!/usr/bin/env bash
# Opt-in: builds a newer shader compiler than Debian 12's (shaderc 2023.2, glslang 12), which
# rejects GL_EXT_integer_dot_product, GL_KHR_cooperative_matrix and GL_NV_cooperative_matrix2.
# From Debian 13 (trixie) source tarballs - shaderc 2025.x, glslang 15.1, SPIRV-Tools,
# SPIRV-Headers - static and position-independent, into a private prefix that vktune links with
#   cmake -S . -B build-newsc -DVKTUNE_SHADERC_PREFIX=$PWD/.deps/shaderc-trixie
# The default build and CI never need it. Cached: a second run does nothing.
#
#   tools/setup-newer-shaderc.sh [PREFIX]     # default .deps/shaderc-trixie (git-ignored)
#   JOBS=2 (default)                          # parallel compile jobs (~10 min on 2 cores)
#
# The tarballs' paths and SHA-256 sums come from trixie's signed Sources index, read with apt
# into a private state directory (the system's apt configuration is not touched), and
# apt-helper checks each download against its sum. Needs cmake, g++ and python3 (the
# build runs shaderc's own Python scripts), and network access to the Debian mirror that
# /etc/apt/sources.list.d/debian.sources names.
# Layout: PREFIX/include/shaderc/*.h(pp), PREFIX/lib/libshaderc_combined.a (shaderc, glslang,
# SPIRV-Tools and its optimizer in one archive), PREFIX/bin/glslc, PREFIX/VERSIONS.txt;
# downloads, sources and the build tree in PREFIX.work/ (deletable once built).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
P=$(realpath -m "${1:-$root/.deps/shaderc-trixie}")
W="$P.work"
SUITE=trixie
JOBS=${JOBS:-2}
PACKAGES=(spirv-headers spirv-tools glslang shaderc)

if [ -s "$P/lib/libshaderc_combined.a" ] && [ -s "$P/VERSIONS.txt" ]; then
  echo "setup-newer-shaderc: already built in $P"
  cat "$P/VERSIONS.txt"
  exit 0
fi
for c in cmake g++ python3 tar; do
  command -v "$c" >/dev/null || { echo "setup-newer-shaderc: needs $c (tools/setup.sh installs the rest of the tool chain)" >&2; exit 1; }
done
mkdir -p "$W/dl" "$W/src" "$W/build" "$W/apt/lists/partial" "$W/apt/cache"
# Both stay out of git wherever they are put.
echo '*' > "$W/.gitignore"
mkdir -p "$P" && echo '*' > "$P/.gitignore"
say() { printf '== setup-newer-shaderc: %s\n' "$*"; }

t0=$SECONDS
say "sources: $SUITE source tarballs of ${PACKAGES[*]}"
host=$(awk '/^URIs:/{print $2; exit}' /etc/apt/sources.list.d/debian.sources)
echo "deb-src $host $SUITE main" > "$W/apt/sources.list"
O=(-o Dir::Etc::SourceList="$W/apt/sources.list" -o Dir::Etc::SourceParts=/dev/null
   -o Dir::State::Lists="$W/apt/lists" -o Dir::Cache="$W/apt/cache" -o APT::Sandbox::User=root)
apt-get "${O[@]}" update -qq
versions=()
for p in "${PACKAGES[@]}"; do
  # The upstream (orig) tarball only: its directory and SHA-256 from the signed Sources index.
  read -r dir file sum < <(apt-cache "${O[@]}" showsrc "$p" | awk '/^Package:/{n++}
    n==1&&/^Directory:/{d=$2} n==1&&/^Checksums-Sha256:/{c=1;next} /^[^ ]/{c=0}
    n==1&&c&&$3~/\.orig\.tar\.[a-z0-9]+$/{f=$3;s=$1} END{print d,f,s}')
  [ -n "${file:-}" ] || { echo "setup-newer-shaderc: no $SUITE source of $p in $host" >&2; exit 1; }
  versions+=("$file")
  [ -s "$W/dl/$file" ] || /usr/lib/apt/apt-helper -o APT::Sandbox::User=root \
      download-file "$host/$dir/$file" "$W/dl/$file" "SHA256:$sum"
  rm -rf "$W/src/$p"; mkdir -p "$W/src/$p"
  tar xf "$W/dl/$file" -C "$W/src/$p" --strip-components=1
done
t_sources=$(( SECONDS - t0 ))

t0=$SECONDS
say "build: shaderc_combined and glslc, static, Release, -fPIC (JOBS=$JOBS)"
S="$W/src"; B="$W/build/shaderc"
# The version strings come from `git describe` in each source tree; a prefix inside a checkout
# (ours) would lend them its commit. Stop git at the tarballs: "unknown hash, <date>" instead.
# (glslc --version's "shaderc v2023.8" is upstream's: 2025.2's CHANGES entry has no date.)
export GIT_CEILING_DIRECTORIES="$W/src"
for d in glslang spirv-tools spirv-headers; do ln -sfn "$S/$d" "$S/shaderc/third_party/$d"; done
# PIC: vktune's executables are position-independent (Debian's g++ default), and a static
# archive linked into them must be too.
cmake -S "$S/shaderc" -B "$B" -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=OFF \
  -DCMAKE_POSITION_INDEPENDENT_CODE=ON \
  -DSHADERC_SKIP_TESTS=ON -DSHADERC_SKIP_EXAMPLES=ON -DSHADERC_SKIP_COPYRIGHT_CHECK=ON \
  -DSPIRV_SKIP_TESTS=ON -DSPIRV_SKIP_EXECUTABLES=ON -DSPIRV_WERROR=OFF \
  -DSHADERC_ENABLE_WERROR_COMPILE=OFF -DENABLE_GLSLANG_BINARIES=OFF -DGLSLANG_TESTS=OFF \
  -DENABLE_OPT=ON >"$W/build/shaderc.log"
cmake --build "$B" --target shaderc_combined glslc_exe -j "$JOBS" >>"$W/build/shaderc.log" 2>&1 \
  || { tail -30 "$W/build/shaderc.log"; exit 1; }
t_build=$(( SECONDS - t0 ))

rm -rf "$P/include" "$P/lib" "$P/bin"
install -D -m644 "$B/libshaderc/libshaderc_combined.a" "$P/lib/libshaderc_combined.a"
mkdir -p "$P/include"
cp -r "$S/shaderc/libshaderc/include/shaderc" "$P/include/"
install -D -m755 "$B/glslc/glslc" "$P/bin/glslc"
# Written last: its presence marks the prefix complete.
{
  echo "built from $SUITE: ${versions[*]}"
  echo "glslc --version: $("$P/bin/glslc" --version | tr '\n' ' ')"
  echo "sources ${t_sources} s, build ${t_build} s with JOBS=$JOBS on $(nproc) cores"
} > "$P/VERSIONS.txt"
say "done: $P"
cat "$P/VERSIONS.txt"
