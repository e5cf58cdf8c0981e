#!/bin/sh
echo "Prisma's schema engine is not installed here. Quarry applies migrations itself: run 'quarry migrate'." >&2
exit 1
