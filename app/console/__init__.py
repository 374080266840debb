"""The admin console and GraphiQL, served from the package.

``dist/`` is the build of the front end in ``console/`` (``node console/build.mjs``),
committed so that an installed Quiver serves both without Node.js or any CDN.
"""
