"""factscope.retrieve"""
